package dev.outbox.api;

import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An event to record together with what the outbox keeps beside its payload. Pass the event object
 * itself to {@link Outbox#record} when none of this is needed.
 *
 * <pre>{@code
 * outbox.record(tx, NewEvent.of(orderPlaced)
 *     .withId(domainEventId)              // retrying the request cannot mint a second event
 *     .withOrderingKey("order-" + orderId)
 *     .withTraceparent(currentTraceparent));
 * }</pre>
 *
 * @param payload the event object, serialized by the outbox's {@link EventSerializer}
 * @param id the event id; null means a new time-ordered UUID (v7)
 * @param eventType the stable type name; null means the one {@link EventTypes} gives the payload's class
 * @param orderingKey an aggregate or ordering key, 1..255 characters, or null
 * @param traceparent a W3C {@code traceparent} header value, or null
 * @param tracestate a W3C {@code tracestate} header value (at most 512 characters), or null
 */
public record NewEvent(
        Object payload,
        @Nullable UUID id,
        @Nullable String eventType,
        @Nullable String orderingKey,
        @Nullable String traceparent,
        @Nullable String tracestate) {

    private static final Pattern TRACEPARENT = Pattern.compile("[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

    public NewEvent {
        Objects.requireNonNull(payload, "NewEvent.payload");
        if (payload instanceof NewEvent) {
            throw new IllegalArgumentException("NewEvent.payload must be the event itself, not another NewEvent");
        }
        if (eventType != null) {
            EventTypes.checkName(eventType, "NewEvent.eventType");
        }
        if (orderingKey != null && (orderingKey.isEmpty() || orderingKey.length() > 255)) {
            throw new IllegalArgumentException(
                    "NewEvent.orderingKey must be 1..255 characters, got " + orderingKey.length());
        }
        checkTrace(traceparent, tracestate, "NewEvent");
    }

    /** The rule of the stored trace headers, for {@code NewEvent} and {@link TraceContext.Headers}. */
    static void checkTrace(@Nullable String traceparent, @Nullable String tracestate, String owner) {
        if (traceparent != null && !TRACEPARENT.matcher(traceparent).matches()) {
            throw new IllegalArgumentException(owner
                    + ".traceparent must be a W3C traceparent (version-traceid-parentid-flags in lower-case hex), got '"
                    + LogText.of(traceparent) + "'");
        }
        if (tracestate != null && tracestate.length() > 512) {
            throw new IllegalArgumentException(
                    owner + ".tracestate must be at most 512 characters, got " + tracestate.length());
        }
    }

    /** The event with nothing beside it. */
    public static NewEvent of(Object payload) {
        return new NewEvent(payload, null, null, null, null, null);
    }

    public NewEvent withId(UUID id) {
        return new NewEvent(payload, Objects.requireNonNull(id, "id"), eventType, orderingKey, traceparent, tracestate);
    }

    public NewEvent withEventType(String eventType) {
        return new NewEvent(payload, id, eventType, orderingKey, traceparent, tracestate);
    }

    public NewEvent withOrderingKey(String orderingKey) {
        return new NewEvent(payload, id, eventType, orderingKey, traceparent, tracestate);
    }

    public NewEvent withTraceparent(String traceparent) {
        return new NewEvent(payload, id, eventType, orderingKey, traceparent, tracestate);
    }

    public NewEvent withTracestate(String tracestate) {
        return new NewEvent(payload, id, eventType, orderingKey, traceparent, tracestate);
    }
}
