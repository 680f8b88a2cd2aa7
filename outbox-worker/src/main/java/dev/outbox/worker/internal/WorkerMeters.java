package dev.outbox.worker.internal;

import dev.outbox.delivery.internal.FailureReason;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.Collection;
import org.jspecify.annotations.Nullable;

/**
 * What the worker measures, as one-line calls from the engine. {@link #NONE} when no meter registry
 * was given; {@link MicrometerWorkerMeters}, the only class of the worker that names a Micrometer type,
 * otherwise, so that the worker runs without Micrometer on the class path.
 */
public interface WorkerMeters {

    /** Measures nothing. */
    WorkerMeters NONE = new WorkerMeters() {};

    /** How a handler run ended, as the {@code outcome} tag reads it. */
    enum Outcome {
        COMPLETED,
        RETRY,
        FAILED,
        WORKER_DIED;

        final String tag = name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Why a message was dropped or rejected without running its handler, as the {@code reason} tag reads it. */
    enum Drop {
        /** The body is not a delivery message (rejected; its delivery failed {@code bad_message} when its ids could be read). */
        BAD_MESSAGE,
        /** A copy of a dispatch this worker is handling right now (acknowledged). */
        DUPLICATE,
        /** No delivery has the message's id (acknowledged). */
        UNKNOWN_DELIVERY,
        /** The delivery is settled or dispatched again with another dispatch id (acknowledged). */
        STALE_DISPATCH,
        /** The message names another job type than its delivery (delivery failed {@code bad_message}). */
        JOB_TYPE_MISMATCH,
        /** No handler for the delivery's job type (delivery failed {@code unknown_job_type}). */
        UNKNOWN_JOB_TYPE,
        /** The event cannot be read as the handler's class (delivery failed {@code undeserializable_event}). */
        UNDESERIALIZABLE_EVENT,
        /** A fatal database error while reading the delivery or writing its outcome (rejected; the delivery times out). */
        DATABASE_ERROR;

        final String tag = name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The meters of a {@code MeterRegistry} given to the builder (typed {@code Object} here so that this
     * interface loads without Micrometer), or {@link #NONE} for null.
     */
    static WorkerMeters of(@Nullable Object meterRegistry, Collection<String> queues, Clock clock) {
        return meterRegistry == null ? NONE : MicrometerWorkerMeters.of(meterRegistry, queues, clock);
    }

    /** A handler starts: one more in flight, and the lag from the event's {@code created_at}; returns a start time for {@link #handlerEnded}. */
    default long handlerStarted(String queue, String jobType, OffsetDateTime createdAt) {
        return 0;
    }

    /** The handler started at {@code started} returned or threw. */
    default void handlerEnded(String queue, String jobType, long started) {}

    /** The outcome the worker writes for a handler run; {@code reason} for {@link Outcome#FAILED} only. */
    default void jobEnded(String queue, String jobType, Outcome outcome, @Nullable FailureReason reason) {}

    /** A message dropped or rejected without running its handler. */
    default void dropped(String queue, Drop reason) {}
}
