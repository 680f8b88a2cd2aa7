package dev.outbox.worker.internal;

import dev.outbox.delivery.RetryPolicy;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** The delivery and its event as the worker reads them before calling a handler; {@code createdAt} is the event's. */
record DeliveryRow(UUID deliveryId, UUID eventId, boolean dispatched, @Nullable UUID dispatchId, String status, String jobType,
        String queue, int attempts, int retries, String eventType, String payload, OffsetDateTime createdAt) {

    boolean isCurrent(UUID dispatch) {
        return dispatched && dispatch.equals(dispatchId);
    }

    boolean lastAttempt() {
        return RetryPolicy.lastAttempt(attempts, retries);
    }
}
