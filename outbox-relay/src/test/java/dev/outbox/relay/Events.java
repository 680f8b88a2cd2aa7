package dev.outbox.relay;

import dev.outbox.api.EventType;
import java.math.BigDecimal;

/** Events of the tests. */
public final class Events {

    private Events() {}

    @EventType("order.placed")
    public record OrderPlaced(long orderId, BigDecimal total) {}

    @EventType("order.cancelled")
    public record OrderCancelled(long orderId) {}

    @EventType("invoice.sent")
    public record InvoiceSent(long invoiceId) {}
}
