package dev.outbox.worker;

import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What {@link JobRunner} did with one dispatched delivery: the handler it ran, with which event and
 * attempt, and what the outbox wrote afterwards.
 *
 * @param eventId the event's id
 * @param deliveryId the delivery's id
 * @param dispatchId the dispatch the handler ran for
 * @param jobType the delivery's job type
 * @param eventType the event's type
 * @param queue the delivery's queue
 * @param attempt the attempt number, from 1
 * @param lastAttempt whether a failure of this attempt was final
 * @param event the event as the handler received it; null when it was not run ({@link Outcome#NOT_CURRENT}, or
 *     an event that could not be read)
 * @param thrown what the handler threw; null when it returned normally or was not run
 * @param outcome what the outbox wrote
 * @param failureReason the failure reason's code when the outcome is {@link Outcome#FAILED}
 */
public record JobRun(
        UUID eventId,
        UUID deliveryId,
        UUID dispatchId,
        String jobType,
        String eventType,
        String queue,
        int attempt,
        boolean lastAttempt,
        @Nullable Object event,
        @Nullable Throwable thrown,
        Outcome outcome,
        @Nullable String failureReason) {

    /** The state the delivery was left in. */
    public enum Outcome {
        /** T5: the handler returned normally; the delivery is completed. */
        COMPLETED,
        /** T6: the handler asked for a retry; the delivery is pending again, available after its next delay. */
        RETRY_SCHEDULED,
        /** T6 with no retry left, T7 or T8: the delivery failed for good with {@link JobRun#failureReason()}. */
        FAILED,
        /** The delivery is not dispatched with this dispatch id (unknown, settled or dispatched again): nothing ran, nothing changed. */
        NOT_CURRENT
    }

    public JobRun {
        Objects.requireNonNull(outcome, "outcome");
    }

    /** The event as {@code type}. */
    public <T> T event(Class<T> type) {
        if (event == null) {
            throw new IllegalStateException("no event: delivery " + deliveryId + " " + outcome
                    + (failureReason == null ? "" : " " + failureReason));
        }
        return type.cast(event);
    }
}
