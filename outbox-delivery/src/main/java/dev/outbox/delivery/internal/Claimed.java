package dev.outbox.delivery.internal;

import dev.outbox.delivery.RouteKind;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One delivery just claimed for dispatch (T2), with what its message needs.
 *
 * @param timeoutSeconds the delivery's timeout (its snapshot): how long the dispatch may wait for a
 *     worker, and a worker for its job, before T4
 * @param payload the event payload as JSON text, for publish routes only
 */
public record Claimed(
        UUID deliveryId,
        UUID eventId,
        UUID dispatchId,
        RouteKind kind,
        String jobType,
        String queue,
        @Nullable String exchange,
        @Nullable String routingKey,
        int attempt,
        int retries,
        int timeoutSeconds,
        String eventType,
        @Nullable String traceparent,
        @Nullable String tracestate,
        @Nullable String payload) {}
