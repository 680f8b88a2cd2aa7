package dev.outbox.delivery;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.api.IdGenerator;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.enums.OutboxRouteKind;
import dev.outbox.schema.tables.OutboxDeliveries;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jooq.types.DayToSecond;
import org.jspecify.annotations.Nullable;

/**
 * The relay's edges of the delivery state machine, one guarded statement each: T1 route, T2 claim,
 * the completion of a confirmed publish route, T3 publish refused and T4 timed out (the last two
 * through the shared {@link DeliveryTransitions#retryOrFail}). Each takes the context of an open
 * transaction and returns what it changed; the caller commits.
 *
 * <p>The hot queries repeat the partial index predicates literally ({@code routed_at IS NULL},
 * {@code status = 'pending'}, {@code status = 'dispatched'}) and order by the indexed column with a
 * LIMIT, so that the partial indexes serve them whatever the statistics say.
 */
public final class RelayTransitions {

    /** The CTE of the events T1 locked, and of the deliveries it inserted. */
    private static final Name LOCKED = DSL.name("locked");
    private static final Field<UUID> LOCKED_ID = DSL.field(DSL.name("locked", "id"), SQLDataType.UUID);
    private static final Name INSERTED = DSL.name("inserted");

    private static final Field<DayToSecond> ONE_SECOND = DSL.inline(new DayToSecond(0, 0, 0, 1));
    private static final Field<OutboxDeliveryStatus> PENDING = DSL.inline(OutboxDeliveryStatus.pending);
    private static final Field<OutboxDeliveryStatus> DISPATCHED = DSL.inline(OutboxDeliveryStatus.dispatched);
    private static final Field<Integer> RETRIES = DSL.cardinality(OUTBOX_DELIVERIES.RETRY_DELAYS_SECONDS).as("retries");
    private static final Field<String> PAYLOAD_TEXT = DSL.when(OUTBOX_DELIVERIES.KIND.eq(DSL.inline(OutboxRouteKind.publish)),
            OUTBOX_EVENTS.PAYLOAD.cast(SQLDataType.CLOB)).as("payload_text");

    private final OutboxTables tables;
    private final RouteTable routes;
    private final DeliveryTransitions shared;
    private final IdGenerator ids = IdGenerator.uuidV7();
    private final RouteSnapshot snapshot;

    public RelayTransitions(OutboxTables tables, RouteTable routes, Clock clock) {
        this.tables = tables;
        this.routes = routes;
        this.shared = new DeliveryTransitions(tables, clock);
        this.snapshot = new RouteSnapshot(routes);
    }

    /**
     * What one routing batch did.
     *
     * @param events events routed
     * @param deliveries deliveries created
     * @param seen unrouted events looked at (a full batch means there may be more)
     * @param lastSeen the id of the last event looked at, where the next batch of the pass starts
     * @param unroutedTypes the types of events looked at that have no route
     */
    public record Routed(int events, int deliveries, int seen, @Nullable UUID lastSeen, Set<String> unroutedTypes) {}

    /**
     * T1: routes up to {@code limit} unrouted events after {@code after} (from the oldest when null).
     * First reads the next unrouted events in id order without locking (the partial index alone
     * serves it); then one statement does the rest inside PostgreSQL: it locks those whose type has
     * routes ({@code FOR UPDATE SKIP LOCKED}, by primary key, rechecking {@code routed_at IS NULL}),
     * inserts one delivery per route of each locked event (a duplicate is stopped by the unique key)
     * and sets {@code routed_at} of the locked events. Events without a route are never locked or
     * changed: they stay unrouted and hold nothing back.
     */
    public Routed route(DSLContext tx, int limit, @Nullable UUID after) {
        DSLContext ctx = PlannedDsl.planned(tx, tables);
        OffsetDateTime now = shared.now();
        var candidates = ctx.select(OUTBOX_EVENTS.ID, OUTBOX_EVENTS.EVENT_TYPE)
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ROUTED_AT.isNull())
                .and(after == null ? DSL.noCondition() : OUTBOX_EVENTS.ID.gt(after))
                .orderBy(OUTBOX_EVENTS.ID)
                .limit(limit)
                .fetch();
        if (candidates.isEmpty()) {
            return new Routed(0, 0, 0, after, Set.of());
        }
        UUID lastSeen = candidates.get(candidates.size() - 1).value1();
        Set<String> unrouted = new LinkedHashSet<>();
        List<UUID> routable = new ArrayList<>(candidates.size());
        RouteSnapshot.Pairs pairs = snapshot.pairs(candidates.size());
        for (var c : candidates) {
            List<DeliveryTemplate> eventRoutes = routes.of(c.value2());
            if (eventRoutes.isEmpty()) {
                unrouted.add(c.value2());
                continue;
            }
            routable.add(c.value1());
            for (DeliveryTemplate route : eventRoutes) {
                pairs.add(ids.next(), c.value1(), route);
            }
        }
        if (routable.isEmpty()) {
            return new Routed(0, 0, candidates.size(), lastSeen, unrouted);
        }
        var lockedIds = DSL.select(LOCKED_ID).from(DSL.table(LOCKED));
        var routed = ctx.with(pairs.table())
                .with(LOCKED.fields(LOCKED_ID.getName()).as(DSL.select(OUTBOX_EVENTS.ID)
                        .from(OUTBOX_EVENTS)
                        .where(OUTBOX_EVENTS.ID.eq(DSL.any(routable.toArray(UUID[]::new))))
                        .and(OUTBOX_EVENTS.ROUTED_AT.isNull())
                        .forUpdate()
                        .skipLocked()))
                .with(INSERTED.fields(OUTBOX_DELIVERIES.ID.getName()).as(ctx.insertInto(OUTBOX_DELIVERIES, RouteSnapshot.COLUMNS)
                        .select(pairs.deliveries(now, lockedIds))
                        // the unique key (event_id, job_type, queue_name), by its columns: its name follows the table's
                        .onConflict(OUTBOX_DELIVERIES.EVENT_ID, OUTBOX_DELIVERIES.JOB_TYPE, OUTBOX_DELIVERIES.QUEUE_NAME)
                        .doNothing()
                        .returningResult(OUTBOX_DELIVERIES.ID)))
                .update(OUTBOX_EVENTS)
                .set(OUTBOX_EVENTS.ROUTED_AT, DSL.greatest(DSL.val(now), OUTBOX_EVENTS.CREATED_AT))
                // = ANY(ARRAY(...)): the locked ids reach the primary key, never a scan of the table
                .where(OUTBOX_EVENTS.ID.eq(DSL.any(DSL.array(lockedIds))))
                .and(OUTBOX_EVENTS.ROUTED_AT.isNull())
                .returningResult(OUTBOX_EVENTS.ID, DSL.field(DSL.selectCount().from(DSL.table(INSERTED))))
                .fetch();
        int created = routed.isEmpty() ? 0 : routed.get(0).value2();
        return new Routed(routed.size(), created, candidates.size(), lastSeen, unrouted);
    }

    /**
     * T2: one statement claims up to {@code limit} ready pending deliveries ({@code FOR UPDATE SKIP
     * LOCKED}, oldest available first): status dispatched, a new dispatch id, attempts + 1,
     * dispatched_at and delivery_timeout_at; returns what the messages need.
     */
    public List<Claimed> claim(DSLContext tx, int limit) {
        DSLContext ctx = PlannedDsl.planned(tx, tables);
        OffsetDateTime now = shared.now();
        Field<OffsetDateTime> nowField = DSL.val(now);
        OutboxDeliveries ready = OUTBOX_DELIVERIES.as("ready");
        var claimed = ctx.update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, DISPATCHED)
                .set(OUTBOX_DELIVERIES.DISPATCH_ID, DSL.uuid())
                .set(OUTBOX_DELIVERIES.ATTEMPTS, OUTBOX_DELIVERIES.ATTEMPTS.plus(1))
                .set(OUTBOX_DELIVERIES.DISPATCHED_AT, nowField)
                .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, nowField.plus(ONE_SECOND.times(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_SECONDS)))
                .set(OUTBOX_DELIVERIES.UPDATED_AT, nowField)
                .from(OUTBOX_EVENTS)
                // = ANY(ARRAY(...)): the claimed ids reach the primary key, never a scan of the table
                .where(OUTBOX_DELIVERIES.ID.eq(DSL.any(DSL.array(DSL.select(ready.ID)
                        .from(ready)
                        .where(ready.STATUS.eq(PENDING))
                        .and(ready.AVAILABLE_AT.le(nowField))
                        .orderBy(ready.AVAILABLE_AT)
                        .limit(limit)
                        .forUpdate()
                        .skipLocked()))))
                .and(OUTBOX_DELIVERIES.STATUS.eq(PENDING))
                .and(OUTBOX_EVENTS.ID.eq(OUTBOX_DELIVERIES.EVENT_ID))
                .returningResult(OUTBOX_DELIVERIES.ID, OUTBOX_DELIVERIES.EVENT_ID, OUTBOX_DELIVERIES.DISPATCH_ID, OUTBOX_DELIVERIES.KIND,
                        OUTBOX_DELIVERIES.JOB_TYPE, OUTBOX_DELIVERIES.QUEUE_NAME, OUTBOX_DELIVERIES.EXCHANGE,
                        OUTBOX_DELIVERIES.ROUTING_KEY, OUTBOX_DELIVERIES.ATTEMPTS, RETRIES, OUTBOX_EVENTS.EVENT_TYPE,
                        OUTBOX_EVENTS.TRACEPARENT, OUTBOX_EVENTS.TRACESTATE, PAYLOAD_TEXT)
                .fetch();
        List<Claimed> result = new ArrayList<>(claimed.size());
        for (Record r : claimed) {
            result.add(new Claimed(r.get(OUTBOX_DELIVERIES.ID), r.get(OUTBOX_DELIVERIES.EVENT_ID), r.get(OUTBOX_DELIVERIES.DISPATCH_ID),
                    r.get(OUTBOX_DELIVERIES.KIND) == OutboxRouteKind.publish ? RouteKind.PUBLISH : RouteKind.JOB,
                    r.get(OUTBOX_DELIVERIES.JOB_TYPE), r.get(OUTBOX_DELIVERIES.QUEUE_NAME), r.get(OUTBOX_DELIVERIES.EXCHANGE),
                    r.get(OUTBOX_DELIVERIES.ROUTING_KEY), r.get(OUTBOX_DELIVERIES.ATTEMPTS), r.get(RETRIES),
                    r.get(OUTBOX_EVENTS.EVENT_TYPE), r.get(OUTBOX_EVENTS.TRACEPARENT), r.get(OUTBOX_EVENTS.TRACESTATE),
                    r.get(PAYLOAD_TEXT)));
        }
        return result;
    }

    /**
     * A publish route's message was confirmed: T5, dispatched → completed, the same statement as
     * the worker's ({@link DeliveryTransitions#complete}). Returns the ids of the deliveries it completed.
     */
    public List<UUID> completePublished(DSLContext tx, UUID[] deliveryIds, UUID[] dispatchIds) {
        return shared.complete(tx, deliveryIds, dispatchIds);
    }

    /**
     * T3u, release unsent: these dispatches never reached the broker (the connection was lost
     * between the claim and the publish): dispatched → pending as they were before T2, available at
     * once with their {@code available_at} kept, {@code attempts - 1} (an attempt that never left the
     * relay does not count), {@code dispatched_at} and {@code delivery_timeout_at} cleared. Guarded by
     * status dispatched and the dispatch id; returns the ids of the deliveries it released.
     */
    public List<UUID> releaseUnsent(DSLContext tx, UUID[] deliveryIds, UUID[] dispatchIds) {
        return PlannedDsl.planned(tx, tables)
                .update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, PENDING)
                .set(OUTBOX_DELIVERIES.ATTEMPTS, OUTBOX_DELIVERIES.ATTEMPTS.minus(1))
                .set(OUTBOX_DELIVERIES.DISPATCHED_AT, DSL.inline((OffsetDateTime) null))
                .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, DSL.inline((OffsetDateTime) null))
                .set(OUTBOX_DELIVERIES.UPDATED_AT, shared.now())
                .where(OUTBOX_DELIVERIES.ID.eq(DSL.any(deliveryIds)))
                .and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(DSL.any(dispatchIds)))
                .and(OUTBOX_DELIVERIES.STATUS.eq(DISPATCHED))
                .returningResult(OUTBOX_DELIVERIES.ID)
                .fetch(OUTBOX_DELIVERIES.ID);
    }

    /** T3: the broker refused (or never confirmed) these dispatches; retry-or-fail with {@code publish_failed}. */
    public List<RetryOutcome> publishRefused(DSLContext tx, UUID[] deliveryIds, UUID[] dispatchIds) {
        return publishRefused(tx, deliveryIds, dispatchIds, FailureReason.PUBLISH_FAILED);
    }

    /**
     * T3 with the reason a delivery fails with when no retry is left: {@code publish_failed}, or
     * {@code queue_declare_failed} when the broker refused to declare the delivery's queue.
     */
    public List<RetryOutcome> publishRefused(DSLContext tx, UUID[] deliveryIds, UUID[] dispatchIds, FailureReason exhaustedReason) {
        return shared.retryOrFail(tx, OUTBOX_DELIVERIES.ID.eq(DSL.any(deliveryIds)).and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(DSL.any(dispatchIds))),
                exhaustedReason);
    }

    /**
     * T4: up to {@code limit} dispatched deliveries whose {@code delivery_timeout_at} has passed
     * ({@code FOR UPDATE SKIP LOCKED}) go through retry-or-fail with {@code timeout}.
     */
    public List<RetryOutcome> timeOut(DSLContext tx, int limit) {
        OutboxDeliveries overdue = OUTBOX_DELIVERIES.as("overdue");
        return shared.retryOrFail(tx, OUTBOX_DELIVERIES.ID.eq(DSL.any(DSL.array(DSL.select(overdue.ID)
                .from(overdue)
                .where(overdue.STATUS.eq(DISPATCHED))
                .and(overdue.DELIVERY_TIMEOUT_AT.le(DSL.val(shared.now())))
                .orderBy(overdue.DELIVERY_TIMEOUT_AT)
                .limit(limit)
                .forUpdate()
                .skipLocked()))), FailureReason.TIMEOUT);
    }
}
