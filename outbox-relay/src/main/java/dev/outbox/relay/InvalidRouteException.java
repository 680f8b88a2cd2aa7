package dev.outbox.relay;

import dev.outbox.api.OutboxException;

/** A route, a set of routes or a routes file that cannot be used; the message names the event type and the field. */
public final class InvalidRouteException extends OutboxException {

    private static final long serialVersionUID = 1L;

    public InvalidRouteException(String message) {
        super(message);
    }

    public InvalidRouteException(String message, Throwable cause) {
        super(message, cause);
    }
}
