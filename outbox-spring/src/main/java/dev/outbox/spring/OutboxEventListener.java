package dev.outbox.spring;

import dev.outbox.api.EventType;
import dev.outbox.api.LogText;
import dev.outbox.api.Names;
import dev.outbox.api.NewEvent;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxException;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;

/**
 * Records each published event of an {@link OutboxEvent} class through {@link Outbox#record} on the
 * application's transaction-aware {@code DSLContext}, while {@code publishEvent} runs, in the
 * publisher's thread and transaction. So the event commits or rolls back with the business change,
 * and whatever {@code record} throws reaches the publisher: outside a transaction its
 * {@code IllegalStateException} ("needs the caller's open transaction"), an event that cannot be
 * encoded, an id already recorded. Events of other classes are ignored.
 *
 * <p>An event published as an object ({@code publishEvent(new OrderPlaced(...))}, which Spring wraps
 * in a {@link PayloadApplicationEvent}) or as a {@code PayloadApplicationEvent} of one is recorded as
 * that object. An {@link ApplicationEvent} subclass marked {@link OutboxEvent} is refused: its
 * source is not part of the event. The listener never runs asynchronously, even when the
 * application's event multicaster has an executor: another thread has no transaction to join.
 *
 * <pre>{@code
 * @Bean
 * OutboxEventListener outboxEventListener(Outbox outbox, DSLContext dsl) {   // Boot declares it for you
 *     return new OutboxEventListener(outbox, dsl);
 * }
 * }</pre>
 */
public final class OutboxEventListener implements ApplicationListener<ApplicationEvent> {

    /** The event type of each class: empty when it has no {@link OutboxEvent}; a bad annotation is not cached and throws each time. */
    private static final ClassValue<Optional<String>> TYPES = new ClassValue<>() {
        @Override
        protected Optional<String> computeValue(Class<?> type) {
            OutboxEvent annotation = type.getAnnotation(OutboxEvent.class);
            return annotation == null ? Optional.empty() : Optional.of(checkedType(type, annotation.value()));
        }
    };

    private final Outbox outbox;
    private final DSLContext dsl;

    /** {@code dsl} must take its connection from the Spring transaction (Boot's does), or nothing is joined. */
    public OutboxEventListener(Outbox outbox, DSLContext dsl) {
        this.outbox = Objects.requireNonNull(outbox, "outbox");
        this.dsl = Objects.requireNonNull(dsl, "dsl");
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        Object payload = event instanceof PayloadApplicationEvent<?> p ? p.getPayload() : event;
        Optional<String> type = TYPES.get(payload.getClass());
        if (type.isPresent()) {
            outbox.record(dsl, newEvent(payload, type.get()));
        }
    }

    /** Always false: the event is recorded in the publisher's transaction, so in its thread. */
    @Override
    public boolean supportsAsyncExecution() {
        return false;
    }

    private static NewEvent newEvent(Object payload, String type) {
        NewEvent event = NewEvent.of(payload).withEventType(type);
        if (payload instanceof OutboxEventDetails details) {
            try {
                String key = details.orderingKey();
                UUID id = details.eventId();
                event = key != null ? event.withOrderingKey(key) : event;
                event = id != null ? event.withId(id) : event;
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(payload.getClass().getName() + ": " + e.getMessage(), e);
            }
        }
        return event;
    }

    private static String checkedType(Class<?> type, String name) {
        String where = "@OutboxEvent on " + type.getName();
        if (!Names.isStableName(name)) {
            throw new OutboxException(where + ": event type must match " + Names.STABLE_NAME.pattern() + ", got '"
                    + LogText.of(name) + "'");
        }
        if (ApplicationEvent.class.isAssignableFrom(type)) {
            throw new OutboxException(
                    where + ": an ApplicationEvent subclass is not recorded (its source is not part of the event);"
                            + " mark a plain class and publish it as it is, publisher.publishEvent(new "
                            + type.getSimpleName() + "(...))");
        }
        EventType other = type.getAnnotation(EventType.class);
        if (other != null && !other.value().equals(name)) {
            throw new OutboxException(where + " names event type '" + name + "' and its @EventType names '"
                    + other.value() + "': keep one, so that publishEvent and Outbox.record store the same type");
        }
        return name;
    }
}
