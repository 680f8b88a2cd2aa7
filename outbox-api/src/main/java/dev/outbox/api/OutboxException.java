package dev.outbox.api;

import org.jspecify.annotations.Nullable;

/**
 * The root of the outbox's own failures. {@code SQLException} and {@code IOException} are wrapped
 * at the edge with their cause kept; messages name what is wrong and never carry a payload. A call
 * made wrongly throws the JDK's exceptions instead: {@code IllegalArgumentException} (a bad value),
 * {@code NullPointerException} (a null argument), {@code IllegalStateException} (a call in the
 * wrong state, such as {@code record} outside a transaction).
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
