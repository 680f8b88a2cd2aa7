package dev.outbox.worker.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.delivery.PlannedDsl;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/** The worker's reads: the delivery with its event before a handler runs, and "is this dispatch current?". */
final class DeliveryQueries {

    /** Shared by the worker's threads: {@code OutboxRenderMapping} builds a new mapping per context. */
    private final DSLContext db;

    DeliveryQueries(DSLContext dsl, OutboxTables tables) {
        this.db = PlannedDsl.planned(dsl, tables);
    }

    private DSLContext db() {
        return db;
    }

    /** One query: the deliveries joined with their events, by delivery id; unknown ids are absent. */
    Map<UUID, DeliveryRow> lookup(Collection<UUID> deliveryIds) {
        Map<UUID, DeliveryRow> rows = new HashMap<>();
        db().select(OUTBOX_DELIVERIES.ID, OUTBOX_DELIVERIES.EVENT_ID, OUTBOX_DELIVERIES.STATUS, OUTBOX_DELIVERIES.DISPATCH_ID,
                        OUTBOX_DELIVERIES.JOB_TYPE, OUTBOX_DELIVERIES.QUEUE_NAME, OUTBOX_DELIVERIES.ATTEMPTS,
                        DSL.cardinality(OUTBOX_DELIVERIES.RETRY_DELAYS_SECONDS), OUTBOX_EVENTS.EVENT_TYPE, OUTBOX_EVENTS.PAYLOAD)
                .from(OUTBOX_DELIVERIES)
                .join(OUTBOX_EVENTS).on(OUTBOX_EVENTS.ID.eq(OUTBOX_DELIVERIES.EVENT_ID))
                .where(OUTBOX_DELIVERIES.ID.eq(DSL.any(deliveryIds.toArray(UUID[]::new))))
                .forEach(r -> rows.put(r.value1(), new DeliveryRow(r.value1(), r.value2(), r.value3() == OutboxDeliveryStatus.dispatched,
                        r.value4(), r.value3().getLiteral(), r.value5(), r.value6(), r.value7(), r.value8(), r.value9(), r.value10().data())));
        return rows;
    }

    /** True while the delivery is dispatched with this dispatch id. */
    boolean isCurrent(UUID deliveryId, UUID dispatchId) {
        DSLContext db = db();
        return db.fetchExists(db.selectOne().from(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(deliveryId))
                .and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(dispatchId))
                .and(OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.dispatched)));
    }
}
