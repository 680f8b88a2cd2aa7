package dev.outbox.relay;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.api.Outbox;
import dev.outbox.delivery.internal.DeliveryTransitions;
import dev.outbox.delivery.internal.WorkerTransitions;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.schema.tables.records.OutboxEventsRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** Reads and writes the outbox tables of a test schema. */
public final class Tables {

    private final DSLContext dsl;
    private final Outbox outbox;
    private final PostgresSchemaExtension db;

    public Tables(PostgresSchemaExtension db) {
        this.dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES, OutboxRenderMapping.settings(db.tables()));
        this.outbox = Outbox.builder().tables(db.tables()).build();
        this.db = db;
    }

    /**
     * A worker takes the messages of the dispatched deliveries that match {@code which} at the
     * clock's now: T2s, as the worker writes it. Returns how many it marked started.
     */
    public int pickUp(Clock clock, Predicate<OutboxDeliveriesRecord> which) {
        WorkerTransitions worker = new WorkerTransitions(new DeliveryTransitions(db.tables(), clock));
        List<WorkerTransitions.Dispatch> dispatched = deliveries().stream()
                .filter(d -> d.getStatus() == OutboxDeliveryStatus.dispatched)
                .filter(which)
                .map(d -> new WorkerTransitions.Dispatch(d.getId(), d.getDispatchId()))
                .toList();
        return worker.start(dsl, dispatched, false).size();
    }

    public DSLContext dsl() {
        return dsl;
    }

    /** Records events (objects or NewEvents) in one transaction; returns their ids. */
    public List<UUID> record(Object... events) {
        return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), List.of(events)));
    }

    public List<UUID> recordAll(List<?> events) {
        return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
    }

    public List<OutboxDeliveriesRecord> deliveries() {
        return dsl.selectFrom(OUTBOX_DELIVERIES)
                .orderBy(OUTBOX_DELIVERIES.CREATED_AT, OUTBOX_DELIVERIES.JOB_TYPE)
                .fetch();
    }

    public List<OutboxDeliveriesRecord> deliveriesOf(UUID eventId) {
        return dsl.selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.EVENT_ID.eq(eventId))
                .orderBy(OUTBOX_DELIVERIES.JOB_TYPE)
                .fetch();
    }

    public OutboxDeliveriesRecord delivery(UUID eventId) {
        List<OutboxDeliveriesRecord> all = deliveriesOf(eventId);
        if (all.size() != 1) {
            throw new AssertionError("expected one delivery of event " + eventId + ", found " + all.size());
        }
        return all.get(0);
    }

    public OutboxEventsRecord event(UUID id) {
        return dsl.selectFrom(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(id)).fetchSingle();
    }
}
