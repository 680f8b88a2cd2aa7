package dev.outbox.worker;

import dev.outbox.api.OutboxException;
import org.jspecify.annotations.Nullable;

/**
 * Thrown by a handler to ask for a retry: the delivery goes back to pending with the next delay of its
 * retry schedule, or fails {@code retries_exhausted} when the schedule has none left. The message is
 * never logged or stored (only this class's name is); put nothing secret in it anyway.
 */
public class RetryableOutboxException extends OutboxException {

    private static final long serialVersionUID = 1L;

    public RetryableOutboxException(String message) {
        super(message);
    }

    public RetryableOutboxException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
