package dev.outbox.spring;

import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link OutboxEvent} may carry beside its payload, as {@link dev.outbox.api.NewEvent} does
 * for {@code record}: implement it on the event class when its events need an ordering key or an id
 * of your own. Both are read when the event is published; null (the default) means none.
 *
 * <pre>{@code
 * @OutboxEvent("order.placed")
 * record OrderPlaced(String orderId, BigDecimal total) implements OutboxEventDetails {
 *     @Override
 *     public String orderingKey() {
 *         return "order-" + orderId;   // the events of one order are delivered in order
 *     }
 * }
 * }</pre>
 */
public interface OutboxEventDetails {

    /** The aggregate or ordering key ({@link dev.outbox.api.NewEvent#orderingKey()}), 1..255 characters, or null. */
    default @Nullable String orderingKey() {
        return null;
    }

    /**
     * The event id ({@link dev.outbox.api.NewEvent#id()}), or null for a new time-ordered one. An id
     * that is already recorded makes {@code publishEvent} throw {@link dev.outbox.api.DuplicateEventException}.
     */
    default @Nullable UUID eventId() {
        return null;
    }
}
