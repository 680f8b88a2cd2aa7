package dev.outbox.admin;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One delivery, in any status, with its event. The payload is read only when asked for
 * ({@link OutboxAdmin#show(UUID, boolean)}); otherwise it is null.
 */
public record DeliveryDetails(
        UUID id,
        String status,
        String kind,
        String jobType,
        String queue,
        @Nullable String exchange,
        @Nullable String routingKey,
        List<Integer> retryDelaysSeconds,
        int deliveryTimeoutSeconds,
        int attempts,
        @Nullable UUID dispatchId,
        Instant availableAt,
        @Nullable Instant dispatchedAt,
        @Nullable Instant deliveryTimeoutAt,
        @Nullable Instant completedAt,
        @Nullable Instant failedAt,
        @Nullable String failureReason,
        Instant createdAt,
        Instant updatedAt,
        UUID eventId,
        String eventType,
        Instant eventCreatedAt,
        @Nullable Instant eventRoutedAt,
        @Nullable String orderingKey,
        @Nullable String payload) {

    public DeliveryDetails {
        retryDelaysSeconds = List.copyOf(retryDelaysSeconds);
    }

    /** The event's payload (JSON text), present only when it was asked for. */
    public Optional<String> payloadText() {
        return Optional.ofNullable(payload);
    }
}
