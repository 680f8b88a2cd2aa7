package dev.outbox.delivery.internal;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Tells a database outage, which the relay's loop and the worker ride out, from a fatal database
 * error, which ends them. Transient: a lost, refused or timed-out connection (SQLState class 08, a
 * socket error, a pool that found no connection in time), an administrator shutdown or crash recovery
 * (57P01, 57P02, 57P03), too many connections (53300), a serialization failure or deadlock (40001,
 * 40P01). Anything else is fatal, a missing table (42P01), a missing permission (42501), a refused
 * login (28P01, 28000), a missing database (3D000) or a server certificate that TLS verification
 * refuses ({@link TlsRefusal}) first of all: retrying would not change them.
 * Written once for the relay and the worker.
 */
public final class DatabaseOutages {

    private static final Set<String> TRANSIENT_STATES = Set.of("57P01", "57P02", "57P03", "53300", "40001", "40P01");

    /** SQLState insufficient_privilege: a missing grant, or DDL by a role that does not own the table. */
    public static final String INSUFFICIENT_PRIVILEGE = "42501";

    private static final Pattern DENIED = Pattern.compile(
            "permission denied for (table|relation|view|sequence|schema|function|database) \"?([A-Za-z0-9_$]{1,63})\"?");
    private static final Pattern NOT_OWNER = Pattern.compile(
            "must be owner of (table|relation|view|index|sequence|schema|type|function|database) \"?([A-Za-z0-9_$.]{1,127})\"?");
    private static final Pattern ROLE = Pattern.compile("[A-Za-z0-9_$.@-]{1,63}");

    private DatabaseOutages() {}

    /** True when {@code e} (or a cause) says the database is down, restarting or busy, and no cause says it is fatal. */
    public static boolean isTransient(Throwable e) {
        if (TlsRefusal.of(e) != null) {
            return false; // a certificate the client refuses stays refused: SQLState 08006, but no outage
        }
        boolean transientSeen = false;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                if (state.startsWith("08") || TRANSIENT_STATES.contains(state)) {
                    transientSeen = true;
                } else {
                    return false; // a definite answer from the server: a refused login, a missing table ...
                }
            } else if (t instanceof SQLTransientConnectionException
                    || t instanceof ConnectException
                    || t instanceof EOFException
                    || t instanceof SocketException
                    || t instanceof SocketTimeoutException) {
                transientSeen = true;
            }
        }
        return transientSeen;
    }

    /** The innermost SQLState of {@code e}'s causes, if any: five safe characters. */
    public static @Nullable String sqlState(Throwable e) {
        String state = null;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql
                    && sql.getSQLState() != null
                    && sql.getSQLState().matches("[0-9A-Z]{5}")) {
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
            case INSUFFICIENT_PRIVILEGE -> ": permission denied (docs/roles.md lists each component's grants)";
            case "28P01", "28000" -> ": the database refused the login";
            case "3D000" -> ": the database does not exist";
            default -> "";
        };
    }

    /**
     * Like {@link #hint(String)}, and for {@value #INSUFFICIENT_PRIVILEGE} one clause naming the role,
     * what it may not do and on what: {@code ": permission denied: role 'jobs' may not DELETE from table
     * outbox_deliveries (docs/roles.md lists each component's grants)"}, or for DDL {@code ": permission
     * denied: role 'relay' does not own table outbox_events; only the migration owner changes the
     * tables"}. The object comes from PostgreSQL's message, the privilege from our statement (the SQL
     * of jOOQ's exception); neither the message nor the statement is printed, only the names read
     * from them when they are plain identifiers.
     *
     * @param role the database role that ran the statement, or null when unknown ({@code current_user})
     */
    public static String hint(Throwable e, @Nullable String role) {
        TlsRefusal tls = TlsRefusal.of(e);
        if (tls != null) {
            return ": TLS: " + tls.text() + "; check sslrootcert and the host of the JDBC URL (sslmode=verify-full)";
        }
        String state = sqlState(e);
        if (!INSUFFICIENT_PRIVILEGE.equals(state)) {
            return hint(state);
        }
        String who = role != null && ROLE.matcher(role).matches() ? "role '" + role + "'" : "the database role";
        String message = serverMessage(e);
        Matcher owner = message == null ? null : NOT_OWNER.matcher(message);
        if (owner != null && owner.find()) {
            return ": permission denied: " + who + " does not own " + owner.group(1) + " " + owner.group(2)
                    + "; only the migration owner changes the tables (DDL), see docs/roles.md";
        }
        Matcher denied = message == null ? null : DENIED.matcher(message);
        if (denied == null || !denied.find()) {
            return ": permission denied for " + who + " (docs/roles.md lists each component's grants)";
        }
        String kind = denied.group(1);
        String name = denied.group(2);
        String what = switch (kind) {
            case "schema" -> "may not use schema " + name + " (USAGE)";
            case "table", "relation", "view" -> tableAction(statement(e), name) + " " + name;
            default -> "may not use " + kind + " " + name;
        };
        return ": permission denied: " + who + " " + what + " (docs/roles.md lists each component's grants)";
    }

    /** What a statement does to {@code table}: the verb of the first INSERT, UPDATE or DELETE on it, else a read. */
    private static String tableAction(@Nullable String sql, String table) {
        if (sql == null) {
            return "lacks a privilege on table";
        }
        String text = sql.toLowerCase(Locale.ROOT);
        Matcher verb = Pattern.compile("\\b(insert\\s+into|update|delete\\s+from)\\s+(?:\"?[a-z0-9_$]+\"?\\.)?\"?"
                        + Pattern.quote(table.toLowerCase(Locale.ROOT)) + "\"?(?![a-z0-9_$])")
                .matcher(text);
        boolean locks =
                text.contains(" for update") || text.contains(" for no key update") || text.contains(" for share");
        if (verb.find()) {
            String v = verb.group(1);
            String action = v.startsWith("insert")
                    ? (text.contains("do update") ? "INSERT into (or UPDATE, ON CONFLICT DO UPDATE)" : "INSERT into")
                    : v.startsWith("update") ? "UPDATE" : "DELETE from";
            return "may not " + action
                    + (locks && !v.startsWith("update") ? " (or lock rows of: FOR UPDATE needs UPDATE)" : "")
                    + " table";
        }
        if (locks) {
            return "may not lock rows (SELECT ... FOR UPDATE, which needs UPDATE) of table";
        }
        return "may not SELECT from table";
    }

    /**
     * The role a connection of {@code dataSource} runs as ({@code current_user}), or null when it
     * cannot be read: for the message of a refused privilege, asked on a fresh connection because
     * the failing one may be in an aborted transaction.
     */
    public static @Nullable String currentRole(javax.sql.DataSource dataSource) {
        return currentRole(org.jooq.impl.DSL.using(dataSource, org.jooq.SQLDialect.POSTGRES));
    }

    /** Like {@link #currentRole(javax.sql.DataSource)}, on a connection of {@code dsl} outside a transaction. */
    public static @Nullable String currentRole(org.jooq.DSLContext dsl) {
        try {
            return dsl.select(org.jooq.impl.DSL.currentUser()).fetchOne(0, String.class);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The statement of jOOQ's {@code DataAccessException} ("SQL [...]; ..."), if a cause holds one. */
    private static @Nullable String statement(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage();
            if (m != null && m.startsWith("SQL [")) {
                int end = m.lastIndexOf("]; ");
                return end > 5 ? m.substring(5, end) : m.substring(5);
            }
        }
        return null;
    }

    /** PostgreSQL's own message (without the driver's additions), if a cause is the driver's exception. */
    private static @Nullable String serverMessage(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PSQLException p) {
                ServerErrorMessage server = p.getServerErrorMessage();
                return server != null && server.getMessage() != null ? server.getMessage() : p.getMessage();
            }
        }
        return null;
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName();
    }
}
