package dev.outbox.relay;

import org.jspecify.annotations.Nullable;

/**
 * The broker could not be reached: the pass routed what it could and dispatched nothing. A looping
 * relay logs it and tries again after its sleep; a single pass fails with it.
 */
public final class BrokerUnavailableException extends RelayException {

    private static final long serialVersionUID = 1L;

    public BrokerUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
