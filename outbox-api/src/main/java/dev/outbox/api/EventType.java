package dev.outbox.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The stable name of an event class, stored in {@code event_type} and used by routes. It survives a
 * rename or a move of the class. Names match {@code [A-Za-z0-9][A-Za-z0-9._:/-]*}, at most 255 characters.
 *
 * <pre>{@code
 * @EventType("order.placed")
 * record OrderPlaced(long orderId, BigDecimal total) {}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface EventType {
    /** The stable event type name. */
    String value();
}
