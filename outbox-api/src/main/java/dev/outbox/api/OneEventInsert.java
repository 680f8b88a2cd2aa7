package dev.outbox.api;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.schema.tables.records.OutboxEventsRecord;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.Param;
import org.jooq.Record1;
import org.jooq.ResultQuery;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * {@code record}'s statement for one event, written with jOOQ's DSL and rendered once per
 * {@link Outbox}: the INSERT with {@code ON CONFLICT (id) DO NOTHING RETURNING id} (a duplicate
 * leaves the transaction usable) and, when a channel is given, the {@code pg_notify} in the same
 * statement, run only when the row was written (an uncorrelated scalar subquery over the written
 * rows is evaluated once, at the first row). One round trip instead of two, and no jOOQ query built
 * and rendered per event.
 */
final class OneEventInsert {

    private static final List<String> PARAMETERS = List.of(
            "id",
            "event_type",
            "payload",
            "ordering_key",
            "ordering_position",
            "traceparent",
            "tracestate",
            "created_at");

    private final String sql;

    private OneEventInsert(String sql) {
        this.sql = sql;
    }

    /** Renders the statement with the settings and render mapping of {@code mapped}. */
    static OneEventInsert render(DSLContext mapped, @Nullable String channel) {
        Param<UUID> id = DSL.param("id", OUTBOX_EVENTS.ID);
        Param<String> type = DSL.param("event_type", OUTBOX_EVENTS.EVENT_TYPE);
        Param<JSONB> payload = DSL.param("payload", OUTBOX_EVENTS.PAYLOAD);
        Param<String> orderingKey = DSL.param("ordering_key", OUTBOX_EVENTS.ORDERING_KEY);
        Param<Long> orderingPosition = DSL.param("ordering_position", OUTBOX_EVENTS.ORDERING_POSITION);
        Param<String> traceparent = DSL.param("traceparent", OUTBOX_EVENTS.TRACEPARENT);
        Param<String> tracestate = DSL.param("tracestate", OUTBOX_EVENTS.TRACESTATE);
        Param<OffsetDateTime> createdAt = DSL.param("created_at", OUTBOX_EVENTS.CREATED_AT);
        ResultQuery<Record1<UUID>> insert = mapped.insertInto(
                        OUTBOX_EVENTS,
                        OUTBOX_EVENTS.ID,
                        OUTBOX_EVENTS.EVENT_TYPE,
                        OUTBOX_EVENTS.PAYLOAD,
                        OUTBOX_EVENTS.ORDERING_KEY,
                        OUTBOX_EVENTS.ORDERING_POSITION,
                        OUTBOX_EVENTS.TRACEPARENT,
                        OUTBOX_EVENTS.TRACESTATE,
                        OUTBOX_EVENTS.CREATED_AT)
                .values(id, type, payload, orderingKey, orderingPosition, traceparent, tracestate, createdAt)
                .onConflict(OUTBOX_EVENTS.ID)
                .doNothing()
                .returningResult(OUTBOX_EVENTS.ID);
        ResultQuery<?> query = insert;
        if (channel != null) {
            CommonTableExpression<Record1<UUID>> written =
                    DSL.name("written").fields("id").as(insert);
            query = mapped.with(written)
                    .select(
                            written.field(0, UUID.class),
                            DSL.field(DSL.select(
                                    DSL.function("pg_notify", Object.class, DSL.inline(channel), DSL.inline("")))))
                    .from(written);
        }
        List<String> bound = mapped.extractParams(query).values().stream()
                .filter(p -> !p.isInline())
                .map(Param::getParamName)
                .toList();
        if (!bound.equals(PARAMETERS) || mapped.extractBindValues(query).size() != PARAMETERS.size()) {
            throw new IllegalStateException("record's statement binds " + bound + ", expected " + PARAMETERS);
        }
        return new OneEventInsert(mapped.render(query));
    }

    /** Inserts {@code row} in the transaction of {@code tx}; false when its id is already recorded. */
    boolean insert(DSLContext tx, OutboxEventsRecord row) {
        return tx.connectionResult(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setObject(1, row.getId());
                statement.setString(2, row.getEventType());
                statement.setString(3, row.getPayload().data());
                setNullable(statement, 4, row.getOrderingKey());
                if (row.getOrderingPosition() == null) {
                    statement.setNull(5, Types.BIGINT);
                } else {
                    statement.setLong(5, row.getOrderingPosition());
                }
                setNullable(statement, 6, row.getTraceparent());
                setNullable(statement, 7, row.getTracestate());
                statement.setObject(8, row.getCreatedAt());
                try (ResultSet written = statement.executeQuery()) {
                    return written.next();
                }
            } catch (SQLException e) {
                throw new DataAccessException("SQL [" + sql + "]; " + e.getMessage(), e);
            }
        });
    }

    private static void setNullable(PreparedStatement statement, int index, @Nullable String value)
            throws SQLException {
        if (value == null) {
            statement.setNull(index, Types.VARCHAR);
        } else {
            statement.setString(index, value);
        }
    }
}
