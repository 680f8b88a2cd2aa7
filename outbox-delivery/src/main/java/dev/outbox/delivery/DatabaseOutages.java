package dev.outbox.delivery;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Tells a database outage, which the relay's loop and the worker ride out, from a fatal database
 * error, which ends them. Transient: a lost, refused or timed-out connection (SQLState class 08, a
 * socket error, a pool that found no connection in time), an administrator shutdown or crash recovery
 * (57P01, 57P02, 57P03), too many connections (53300), a serialization failure or deadlock (40001,
 * 40P01). Anything else is fatal, a missing table (42P01), a missing permission (42501), a refused
 * login (28P01, 28000) or a missing database (3D000) first of all: retrying would not change them.
 * Written once for the relay and the worker.
 */
public final class DatabaseOutages {

    private static final Set<String> TRANSIENT_STATES = Set.of("57P01", "57P02", "57P03", "53300", "40001", "40P01");

    private DatabaseOutages() {}

    /** True when {@code e} (or a cause) says the database is down, restarting or busy, and no cause says it is fatal. */
    public static boolean isTransient(Throwable e) {
        boolean transientSeen = false;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("08") || TRANSIENT_STATES.contains(state)) {
                    transientSeen = true;
                } else {
                    return false; // a definite answer from the server: a refused login, a missing table ...
                }
            } else if (t instanceof SQLTransientConnectionException || t instanceof ConnectException || t instanceof EOFException
                    || t instanceof SocketException || t instanceof SocketTimeoutException) {
                transientSeen = true;
            }
        }
        return transientSeen;
    }

    /** The innermost SQLState of {@code e}'s causes, if any: five safe characters. */
    public static @Nullable String sqlState(Throwable e) {
        String state = null;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().matches("[0-9A-Z]{5}")) {
                state = sql.getSQLState();
            }
        }
        return state;
    }

    /** One safe line naming {@code e}: its root cause's class and the SQLState, never the driver's message ({@code ConnectException, SQLState 08001}). */
    public static String describe(Throwable e) {
        String state = sqlState(e);
        return rootCause(e) + (state == null ? "" : ", SQLState " + state);
    }

    /** What a fatal SQLState means for an operator, as a suffix ({@code ": a table is missing ..."}), or "". */
    public static String hint(@Nullable String state) {
        if (state == null) {
            return "";
        }
        return switch (state) {
            case "42P01" -> ": a table is missing (wrong schema, or not migrated: run migrate)";
            case "42501" -> ": permission denied";
            case "28P01", "28000" -> ": the database refused the login";
            case "3D000" -> ": the database does not exist";
            default -> "";
        };
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName();
    }
}
