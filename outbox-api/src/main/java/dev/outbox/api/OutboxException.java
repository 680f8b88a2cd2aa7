package dev.outbox.api;

import org.jspecify.annotations.Nullable;

/**
 * The root of the outbox's unchecked exceptions. {@code SQLException} and {@code IOException} are
 * wrapped at the edge with their cause kept; messages name what is wrong and never carry a payload.
 */
public class OutboxException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public OutboxException(String message) {
        super(message);
    }

    public OutboxException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
