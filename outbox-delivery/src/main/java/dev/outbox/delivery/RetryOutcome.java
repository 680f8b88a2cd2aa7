package dev.outbox.delivery;

import java.time.OffsetDateTime;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What a retry-or-fail transition did to one delivery: back to {@code PENDING} until
 * {@code availableAt}, or {@code FAILED} with {@code failureReason}.
 */
public record RetryOutcome(UUID deliveryId, UUID eventId, UUID dispatchId, String jobType, String queue,
        DeliveryStatus status, int attempts, OffsetDateTime availableAt, @Nullable String failureReason) {

    public boolean retried() {
        return status == DeliveryStatus.PENDING;
    }
}
