package dev.outbox.demo;

import dev.outbox.api.EventType;
import java.math.BigDecimal;
import java.time.Instant;

// snippet:java-event
@EventType("order.placed")
public record OrderPlaced(long orderId, String customer, BigDecimal total, Instant placedAt) {}
// end-snippet
