package dev.outbox.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an event class whose Spring application events are recorded in the outbox, under the stable
 * event type {@link #value()}. With the {@link OutboxEventListener} in the context (Spring Boot
 * auto-configures it), {@code publisher.publishEvent(new OrderPlaced(...))} inside a transaction
 * records the event in that transaction, as {@code outbox.record(dsl, event)} would there: it commits
 * or rolls back with the business change. Events of classes without this annotation are not recorded.
 *
 * <p>The type is a name you write, stored in {@code event_type} and matched by the routes, never
 * derived from the class: it survives a rename or a move. Names match
 * {@code [A-Za-z0-9][A-Za-z0-9._:/-]*}, at most 255 characters; a bad one is refused when the event
 * is published, naming the class. The annotation is not inherited: each event class names its own
 * type. An ordering key or an id of your own comes from {@link OutboxEventDetails}.
 *
 * <pre>{@code
 * @OutboxEvent("order.placed")
 * record OrderPlaced(String orderId, BigDecimal total) {}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface OutboxEvent {
    /** The stable event type name. */
    String value();
}
