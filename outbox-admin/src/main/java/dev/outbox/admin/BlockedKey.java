package dev.outbox.admin;

import java.time.Instant;
import java.util.UUID;

/**
 * A key blocked on an ordered route (docs/ordering.md): its head failed for good under the policy
 * {@code block}, and nothing else of the key is dispatched until the head is requeued or skipped.
 *
 * @param jobType the route's job type (or publish route name)
 * @param queue the route's queue (the exchange of a publish route)
 * @param orderingKey the blocked key
 * @param deliveryId the head, failed
 * @param eventId the head's event
 * @param eventType the head's event type
 * @param failureReason why the head failed (a safe code)
 * @param failedAt when the head failed: the key has been blocked since
 */
public record BlockedKey(
        String jobType,
        String queue,
        String orderingKey,
        UUID deliveryId,
        UUID eventId,
        String eventType,
        String failureReason,
        Instant failedAt) {}
