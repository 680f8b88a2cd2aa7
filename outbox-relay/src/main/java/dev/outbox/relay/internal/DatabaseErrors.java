package dev.outbox.relay.internal;

import dev.outbox.delivery.DatabaseOutages;
import dev.outbox.relay.DatabaseUnavailableException;
import dev.outbox.relay.RelayException;

/**
 * The relay's exceptions for database errors: a {@link DatabaseUnavailableException} for an outage,
 * which a looping relay rides out, a {@link RelayException} for a fatal error, which ends it. Which is
 * which is decided once for the relay and the worker by {@link DatabaseOutages}.
 */
final class DatabaseErrors {

    private DatabaseErrors() {}

    /**
     * The exception a pass throws for {@code e}: a {@link DatabaseUnavailableException} when it is
     * transient, else a {@link RelayException}; one line naming the classes and the SQLState, never the
     * driver's message.
     */
    static RelayException classify(Throwable e) {
        String detail = DatabaseOutages.describe(e);
        return DatabaseOutages.isTransient(e) ? new DatabaseUnavailableException("database unavailable (" + detail + ")", e)
                : new RelayException("database error (" + detail + ")" + DatabaseOutages.hint(DatabaseOutages.sqlState(e)), e);
    }
}
