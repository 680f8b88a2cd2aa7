package dev.outbox.relay;

import dev.outbox.api.OutboxException;
import org.jspecify.annotations.Nullable;

/**
 * A failure that stops a relay pass: the database or the broker could not be reached or refused a
 * statement. One delivery's publish failure is never one of these: it becomes that delivery's retry.
 * The message is one line and names the cause's class, never an external message.
 */
public class RelayException extends OutboxException {

    private static final long serialVersionUID = 1L;

    public RelayException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
