package dev.outbox.relay.internal;

import dev.outbox.delivery.internal.DatabaseOutages;
import dev.outbox.relay.DatabaseUnavailableException;
import dev.outbox.relay.RelayException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

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
        return classify(e, null);
    }

    /**
     * Like {@link #classify(Throwable)}; a refused privilege (42501) names the role of a connection of
     * {@code dataSource} ({@link DatabaseOutages#hint(Throwable, String)}).
     */
    static RelayException classify(Throwable e, @Nullable DataSource dataSource) {
        String detail = DatabaseOutages.describe(e);
        if (DatabaseOutages.isTransient(e)) {
            return new DatabaseUnavailableException("database unavailable (" + detail + ")", e);
        }
        String role = dataSource != null && DatabaseOutages.INSUFFICIENT_PRIVILEGE.equals(DatabaseOutages.sqlState(e))
                ? DatabaseOutages.currentRole(dataSource)
                : null;
        return new RelayException("database error (" + detail + ")" + DatabaseOutages.hint(e, role), e);
    }
}
