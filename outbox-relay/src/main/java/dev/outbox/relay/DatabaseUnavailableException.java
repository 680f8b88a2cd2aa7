package dev.outbox.relay;

import org.jspecify.annotations.Nullable;

/**
 * The database could not be reached or was going through a restart (a lost or refused connection,
 * an administrator shutdown, too many connections, a serialization failure or deadlock): the pass
 * stopped and what it committed stays. A looping relay logs it once and tries again with a capped
 * backoff until the database answers; a single pass fails with it. A fatal database error (a missing
 * table, a refused login, a missing permission) is a plain {@link RelayException}.
 */
public final class DatabaseUnavailableException extends RelayException {

    private static final long serialVersionUID = 1L;

    public DatabaseUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
