package dev.outbox.delivery.internal;

import dev.outbox.schema.enums.OutboxDeliveryStatus;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What a retry-or-fail transition did to one delivery: back to {@code pending} until
 * {@code availableAt}, or {@code failed} with {@code failureReason}.
 */
public record RetryOutcome(
        UUID deliveryId,
        UUID eventId,
        UUID dispatchId,
        String jobType,
        String queue,
        OutboxDeliveryStatus status,
        int attempts,
        OffsetDateTime availableAt,
        @Nullable FailureReason failureReason) {

    public boolean retried() {
        return status == OutboxDeliveryStatus.pending;
    }
}
