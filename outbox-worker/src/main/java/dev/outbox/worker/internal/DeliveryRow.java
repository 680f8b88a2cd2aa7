package dev.outbox.worker.internal;

import dev.outbox.delivery.internal.RetryPolicy;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The delivery and its event as the worker reads them before calling a handler; {@code createdAt},
 * {@code traceparent} and {@code tracestate} are the event's (the row's, never the message's);
 * {@code job} is false for a publish route's delivery, which no worker runs.
 */
record DeliveryRow(
        UUID deliveryId,
        UUID eventId,
        boolean dispatched,
        @Nullable UUID dispatchId,
        String status,
        boolean job,
        String jobType,
        String queue,
        int attempts,
        int retries,
        String eventType,
        String payload,
        OffsetDateTime createdAt,
        @Nullable String traceparent,
        @Nullable String tracestate) {

    boolean isCurrent(UUID dispatch) {
        return dispatched && dispatch.equals(dispatchId);
    }

    boolean lastAttempt() {
        return RetryPolicy.lastAttempt(attempts, retries);
    }
}
