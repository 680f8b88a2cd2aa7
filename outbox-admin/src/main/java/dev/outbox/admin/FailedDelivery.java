package dev.outbox.admin;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One failed delivery as listed: where it went, why and when it failed. No payload.
 *
 * @param queue the queue of a job route; for a publish route the queue column's value as stored
 * @param exchange the exchange of a publish route, null for a job route
 * @param routingKey the routing key of a publish route, null for a job route
 */
public record FailedDelivery(
        UUID id,
        UUID eventId,
        String eventType,
        String jobType,
        String queue,
        @Nullable String exchange,
        @Nullable String routingKey,
        int attempts,
        String failureReason,
        Instant failedAt,
        Instant createdAt) {

    /** Where the next page after this delivery starts. */
    public FailedPage.Cursor cursor() {
        return new FailedPage.Cursor(failedAt, id);
    }
}
