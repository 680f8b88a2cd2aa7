package dev.outbox.test;

import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One event as {@code Outbox.record} wrote it, read back with the kit's serializer.
 *
 * @param id the event's id
 * @param eventType its stable type name
 * @param event the payload, deserialized
 * @param payload the payload as stored (JSON)
 * @param orderingKey the ordering key, if recorded with one
 * @param createdAt when it was recorded
 * @param routedAt when the relay (or the kit) routed it; null while unrouted
 * @param <T> the event class
 */
public record RecordedEvent<T>(
        UUID id,
        String eventType,
        T event,
        String payload,
        @Nullable String orderingKey,
        OffsetDateTime createdAt,
        @Nullable OffsetDateTime routedAt) {

    public RecordedEvent {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(event, "event");
    }

    /** True once routed: its deliveries exist. */
    public boolean routed() {
        return routedAt != null;
    }
}
