package dev.outbox.delivery.internal;

import java.util.Locale;
import java.util.Optional;

/**
 * Why a delivery ended {@code failed}: the safe codes written to {@code failure_reason}, never an
 * external message. The schema's CHECK admits any code of the form {@code ^[a-z][a-z0-9_]{0,63}$}
 * (so a newer version may add codes without a migration); these are the ones the state machine
 * writes, each matching that pattern ({@code FailureReasonIT} checks every one against the
 * constraint).
 */
public enum FailureReason {
    /** T3: the broker refused the publish (nack, return, confirm timeout, lost connection) and no retry was left. */
    PUBLISH_FAILED,
    /** T3: the broker refused to declare the delivery's queue and no retry was left. */
    QUEUE_DECLARE_FAILED,
    /** T4: the dispatch timed out and no retry was left. */
    TIMEOUT,
    /**
     * T4: the dispatch timed out with no worker having picked it up, after the relay had sent it
     * again without counting an attempt as often as its bound allows, and no retry was left.
     */
    NEVER_STARTED,
    /** T6: the job asked for a retry and no retry was left. */
    RETRIES_EXHAUSTED,
    /** T7: the job threw a non-retryable exception. */
    JOB_FAILED,
    /** T7: the worker could not read the message (no valid ids). */
    BAD_MESSAGE,
    /** T7: the worker has no handler for the delivery's job type. */
    UNKNOWN_JOB_TYPE,
    /** T7: the event's payload could not be read into the handler's class. */
    UNDESERIALIZABLE_EVENT,
    /** T8: the handler threw an {@code Error}, or a shutdown could not wait for it. */
    WORKER_DIED;

    private final String code = name().toLowerCase(Locale.ROOT);

    /** The code stored in {@code failure_reason}, e.g. {@code retries_exhausted}. */
    public String code() {
        return code;
    }

    /** The reason whose code is {@code code}; empty for a code this version does not write. */
    public static Optional<FailureReason> ofCode(String code) {
        for (FailureReason reason : values()) {
            if (reason.code.equals(code)) {
                return Optional.of(reason);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return code;
    }
}
