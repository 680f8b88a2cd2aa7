package dev.outbox.worker.internal;

import dev.outbox.worker.RetryableOutboxException;
import org.jspecify.annotations.Nullable;

/**
 * What a handler's return or throw asks the worker to write: the one decision shared by the
 * consuming worker ({@link MessageProcessor}) and the synchronous runner ({@link DirectRun}).
 */
enum HandlerResult {
    /** Returned normally: T5, completed. */
    COMPLETE,
    /** Threw {@link RetryableOutboxException}: T6, back to pending with the next delay, or failed {@code retries_exhausted}. */
    RETRY,
    /** Threw any other exception: T7, failed {@code job_failed}. */
    FAIL,
    /** Threw an {@link Error}: T8, failed {@code worker_died}. */
    DIE;

    static HandlerResult of(@Nullable Throwable failure) {
        if (failure == null) {
            return COMPLETE;
        }
        if (failure instanceof RetryableOutboxException) {
            return RETRY;
        }
        return failure instanceof Error ? DIE : FAIL;
    }
}
