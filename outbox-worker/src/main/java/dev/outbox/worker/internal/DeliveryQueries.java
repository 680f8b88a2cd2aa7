package dev.outbox.worker.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.delivery.internal.DeliveryTransitions;
import dev.outbox.delivery.internal.PlannedDsl;
import dev.outbox.delivery.internal.RenderedStatement;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.enums.OutboxRouteKind;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Param;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/** The worker's reads: the delivery with its event before a handler runs, and "is this dispatch current?". */
final class DeliveryQueries {

    private static final Param<UUID[]> IDS = DSL.param("ids", SQLDataType.UUID.array());

    /** Shared by the worker's threads: {@code OutboxRenderMapping} builds a new mapping per context. */
    private final DSLContext db;
    /** {@link #lookup}'s query, rendered once. */
    private final RenderedStatement lookup;

    DeliveryQueries(DSLContext dsl, OutboxTables tables) {
        this.db = PlannedDsl.planned(dsl, tables);
        this.lookup = RenderedStatement.of(
                db,
                db.select(
                                OUTBOX_DELIVERIES.ID,
                                OUTBOX_DELIVERIES.EVENT_ID,
                                OUTBOX_DELIVERIES.STATUS,
                                OUTBOX_DELIVERIES.DISPATCH_ID,
                                OUTBOX_DELIVERIES.JOB_TYPE,
                                OUTBOX_DELIVERIES.QUEUE_NAME,
                                OUTBOX_DELIVERIES.ATTEMPTS,
                                DSL.cardinality(OUTBOX_DELIVERIES.RETRY_DELAYS_SECONDS),
                                OUTBOX_EVENTS.EVENT_TYPE,
                                OUTBOX_EVENTS.PAYLOAD,
                                OUTBOX_EVENTS.CREATED_AT,
                                OUTBOX_DELIVERIES.KIND,
                                OUTBOX_EVENTS.TRACEPARENT,
                                OUTBOX_EVENTS.TRACESTATE)
                        .from(OUTBOX_DELIVERIES)
                        .join(OUTBOX_EVENTS)
                        .on(OUTBOX_EVENTS.ID.eq(OUTBOX_DELIVERIES.EVENT_ID))
                        .where(OUTBOX_DELIVERIES.ID.eq(DSL.any(IDS))),
                IDS);
    }

    private DSLContext db() {
        return db;
    }

    /** One query: the deliveries joined with their events, by delivery id; unknown ids are absent. */
    Map<UUID, DeliveryRow> lookup(Collection<UUID> deliveryIds) {
        return lookup.query(
                db,
                rs -> {
                    Map<UUID, DeliveryRow> rows = new HashMap<>();
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        String status = rs.getString(3);
                        rows.put(
                                id,
                                new DeliveryRow(
                                        id,
                                        rs.getObject(2, UUID.class),
                                        OutboxDeliveryStatus.dispatched
                                                .getLiteral()
                                                .equals(status),
                                        rs.getObject(4, UUID.class),
                                        status,
                                        OutboxRouteKind.job.getLiteral().equals(rs.getString(12)),
                                        rs.getString(5),
                                        rs.getString(6),
                                        rs.getInt(7),
                                        rs.getInt(8),
                                        rs.getString(9),
                                        rs.getString(10),
                                        rs.getObject(11, OffsetDateTime.class),
                                        rs.getString(13),
                                        rs.getString(14)));
                    }
                    return rows;
                },
                (Object) deliveryIds.toArray(UUID[]::new));
    }

    /** True while the delivery is dispatched with this dispatch id. */
    boolean isCurrent(UUID deliveryId, UUID dispatchId) {
        DSLContext db = db();
        return db.fetchExists(db.selectOne()
                .from(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(deliveryId))
                .and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(dispatchId))
                .and(DeliveryTransitions.DISPATCHED_BY_ID));
    }
}
