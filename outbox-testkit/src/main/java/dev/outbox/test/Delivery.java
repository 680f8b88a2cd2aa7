package dev.outbox.test;

import java.time.OffsetDateTime;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One row of the deliveries table as a test sees it: one route of one event.
 *
 * @param id the delivery's id
 * @param eventId its event
 * @param eventType its event's type
 * @param jobType the job type of a job route, the name of a publish route
 * @param queue the queue of a job route, the exchange of a publish route
 * @param status where it stands in the state machine
 * @param attempts dispatches so far
 * @param availableAt when a pending delivery is next ready
 * @param failureReason the safe code of a failed delivery ({@code job_failed}, {@code retries_exhausted}, ...)
 */
public record Delivery(
        UUID id,
        UUID eventId,
        String eventType,
        String jobType,
        String queue,
        Status status,
        int attempts,
        OffsetDateTime availableAt,
        @Nullable String failureReason) {

    /** The delivery states of the outbox's state machine (docs/state-machine.md). */
    public enum Status {
        PENDING,
        DISPATCHED,
        COMPLETED,
        FAILED
    }
}
