package dev.outbox.delivery.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.exception.DataAccessException;
import org.jooq.util.postgres.PostgresUtils;
import org.postgresql.PGStatement;

/**
 * A hot query of relay or worker, written with jOOQ's typed DSL, rendered <em>once</em> (with the
 * render mapping of a {@linkplain PlannedDsl#planned planned} context) and executed many times with
 * new bind values: building and rendering a query, and pgjdbc parsing a new text, cost more CPU
 * than PostgreSQL spends running these statements. Like the planned context, every execution is
 * unplanned until it runs (prepare threshold 0) and arrays are sent untyped.
 *
 * <p>The variable values are named {@link Param}s ({@code DSL.param(name, type)}), each possibly
 * used several times; every other value must be inlined. {@link #query} and {@link #execute} take
 * the values in the order the parameters were given to {@link #of}.
 */
public final class RenderedStatement {

    /** Reads the rows of an executed query. */
    @FunctionalInterface
    public interface Rows<T> {
        T read(ResultSet rows) throws SQLException;
    }

    private final String sql;
    /** For each bind position, the index of the parameter whose value goes there. */
    private final int[] positions;

    private final int parameters;
    /** Whether {@link #sql} begins with a preamble ({@link #after}), whose result is skipped. */
    private final boolean preamble;

    private RenderedStatement(String sql, int[] positions, int parameters, boolean preamble) {
        this.sql = sql;
        this.positions = positions;
        this.parameters = parameters;
        this.preamble = preamble;
    }

    /**
     * Renders {@code query} with the settings of {@code planned} and finds where each of
     * {@code params} is bound. Throws {@link IllegalArgumentException} when a bind value of the query
     * is none of {@code params} (a value that should have been inlined or declared), when two
     * parameters share a name, or a parameter's type has no distinct test value here.
     */
    public static RenderedStatement of(DSLContext planned, Query query, Param<?>... params) {
        Set<String> names = new HashSet<>();
        List<Object> markers = new ArrayList<>(params.length);
        for (int i = 0; i < params.length; i++) {
            String name = params[i].getParamName();
            if (name == null || !names.add(name)) {
                throw new IllegalArgumentException(
                        "parameter " + (i + 1) + " of a rendered statement must have a name of its own, got " + name);
            }
            Object marker = marker(params[i].getType(), i);
            query.bind(name, marker);
            markers.add(marker);
        }
        List<Object> bound = planned.extractBindValues(query);
        int[] positions = new int[bound.size()];
        for (int p = 0; p < bound.size(); p++) {
            positions[p] = -1;
            for (int i = 0; i < markers.size(); i++) {
                if (Objects.deepEquals(bound.get(p), markers.get(i))) {
                    positions[p] = i;
                }
            }
            if (positions[p] < 0) {
                throw new IllegalArgumentException(
                        "bind value " + (p + 1) + " of a rendered statement is not one of its parameters"
                                + " (inline constants, declare variables as parameters): " + bound.get(p));
            }
        }
        for (Param<?> param : params) {
            query.bind(param.getParamName(), null);
        }
        return new RenderedStatement(planned.render(query), positions, params.length, false);
    }

    /**
     * This statement with {@code preamble} run just before it, in the same round trip (pgjdbc sends
     * both before one Sync): for a setting the statement must be planned with, such as
     * {@code set_config(..., true)} inside a transaction, without a round trip of its own. The
     * preamble is one statement without parameters; its result is skipped, and {@link #query} and
     * {@link #execute} give the statement's.
     */
    public RenderedStatement after(String preamble) {
        if (this.preamble) {
            throw new IllegalStateException("this statement has a preamble already");
        }
        if (preamble.isBlank() || preamble.indexOf('?') >= 0 || preamble.indexOf(';') >= 0) {
            throw new IllegalArgumentException(
                    "a preamble is one statement without parameters (no '?', no ';'), got: " + preamble);
        }
        return new RenderedStatement(preamble + ";\n" + sql, positions, parameters, true);
    }

    /**
     * This statement under {@code EXPLAIN} (after its preamble, if it has one): {@link #query} reads
     * the plan PostgreSQL would run it with for the values given, one line per row, without running it.
     * For the tests of the plans our statements get.
     */
    RenderedStatement explain() {
        int body = preamble ? sql.indexOf(";\n") + 2 : 0;
        return new RenderedStatement(
                sql.substring(0, body) + "EXPLAIN " + sql.substring(body), positions, parameters, preamble);
    }

    /** The SQL text, with one {@code ?} per bind position. */
    public String sql() {
        return sql;
    }

    /** Runs the query on the connection of {@code ctx} (its transaction, if it is in one) and reads its rows. */
    public <T> T query(DSLContext ctx, Rows<T> rows, Object... values) {
        return ctx.connectionResult(connection -> {
            try (PreparedStatement statement = prepare(connection, values)) {
                if (!preamble) {
                    try (ResultSet result = statement.executeQuery()) {
                        return rows.read(result);
                    }
                }
                statement.execute();
                if (!statement.getMoreResults()) {
                    throw new SQLException("the statement after the preamble returned no rows");
                }
                try (ResultSet result = statement.getResultSet()) {
                    return rows.read(result);
                }
            } catch (SQLException e) {
                throw new DataAccessException("SQL [" + sql + "]; " + e.getMessage(), e);
            }
        });
    }

    /** Runs the statement on the connection of {@code ctx}; returns the number of rows it changed. */
    public int execute(DSLContext ctx, Object... values) {
        return ctx.connectionResult(connection -> {
            try (PreparedStatement statement = prepare(connection, values)) {
                if (!preamble) {
                    return statement.executeUpdate();
                }
                statement.execute();
                if (statement.getMoreResults()) {
                    throw new SQLException("the statement after the preamble returned rows, not an update count");
                }
                return statement.getUpdateCount();
            } catch (SQLException e) {
                throw new DataAccessException("SQL [" + sql + "]; " + e.getMessage(), e);
            }
        });
    }

    private PreparedStatement prepare(Connection connection, Object[] values) throws SQLException {
        if (values.length != parameters) {
            throw new IllegalArgumentException(
                    "a rendered statement takes " + parameters + " values, got " + values.length);
        }
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            if (statement.isWrapperFor(PGStatement.class)) {
                statement.unwrap(PGStatement.class).setPrepareThreshold(0);
            }
            for (int p = 0; p < positions.length; p++) {
                Object value = values[positions[p]];
                if (value instanceof Object[] array) {
                    statement.setObject(p + 1, PostgresUtils.toPGArrayString(array), Types.OTHER);
                } else {
                    statement.setObject(p + 1, value);
                }
            }
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    /** A value of {@code type} that no other parameter of the statement has: {@code index} is in it. */
    private static Object marker(Class<?> type, int index) {
        UUID uuid = new UUID(0x6f7574626f78L, index);
        String text = "outbox-parameter-" + index;
        if (type == UUID.class) {
            return uuid;
        } else if (type == UUID[].class) {
            return new UUID[] {uuid};
        } else if (type == String.class) {
            return text;
        } else if (type == String[].class) {
            return new String[] {text};
        } else if (type == Integer.class) {
            return -1_000_000 - index;
        } else if (type == Integer[].class) {
            return new Integer[] {-1_000_000 - index};
        } else if (type == Boolean[].class) {
            return new Boolean[] {true, index % 2 == 0, (index / 2) % 2 == 0, (index / 4) % 2 == 0, (index / 8) % 2 == 0
            };
        } else if (type == OffsetDateTime.class) {
            return OffsetDateTime.ofInstant(Instant.ofEpochSecond(1_000_000L + index), ZoneOffset.UTC);
        }
        throw new IllegalArgumentException("a rendered statement has no parameters of type " + type.getName());
    }
}
