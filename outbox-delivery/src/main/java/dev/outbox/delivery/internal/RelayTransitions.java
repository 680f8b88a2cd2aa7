package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.api.IdGenerator;
import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.RouteTable;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.enums.OutboxRouteKind;
import dev.outbox.schema.tables.OutboxDeliveries;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Param;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jooq.types.DayToSecond;
import org.jspecify.annotations.Nullable;

/**
 * The relay's edges of the delivery state machine, one guarded statement each: T1 route, T2 claim,
 * the completion of a confirmed publish route, T3 publish refused and T4 timed out (the last two
 * through {@link DeliveryTransitions#retryOrFail}), T4u timed out before any worker picked the
 * dispatch up. Each takes the context of an open transaction and returns what it changed; the
 * caller commits.
 *
 * <p>The hot queries repeat the partial index predicates literally and order by the indexed column
 * with a LIMIT, so that the partial indexes serve them whatever the statistics say. T1, T2 and T4
 * run with bitmap and sequential scans off ({@link #INDEX_SCANS_ONLY}): a plain index scan marks
 * the dead entries it meets so the next pass steps over them; a bitmap scan would read the table
 * page of every dead entry on every pass.
 */
public final class RelayTransitions {

    /**
     * How often a delivery may time out before any worker picked it up and be sent again without
     * counting an attempt (T4u). A dispatch waits that long only when no worker takes messages from
     * its queue (none runs, or all are far behind): with the default bound and a timeout of 60 s, a
     * delivery waits about 100 minutes for a worker before its own retries begin to count.
     */
    public static final int MAX_UNSTARTED_TIMEOUTS = 100;

    /** The CTE of the events T1 locked, and of the deliveries it inserted. */
    private static final Name LOCKED = DSL.name("locked");

    private static final Field<UUID> LOCKED_ID = DSL.field(DSL.name("locked", "id"), SQLDataType.UUID);
    private static final Field<String> LOCKED_KEY = DSL.field(DSL.name("locked", "ordering_key"), SQLDataType.CLOB);
    private static final Field<Long> LOCKED_POSITION =
            DSL.field(DSL.name("locked", "ordering_position"), SQLDataType.BIGINT);
    /** The first half of the advisory locks that let one relay at a time route (T1o) or claim (T2o) for ordered routes. */
    private static final int ORDERED_LOCK = 0x4f52444b; // "ORDK"

    private static final Name INSERTED = DSL.name("inserted");
    /** The recursive CTE of T2o: the (route, key)s with a live delivery. */
    private static final Name LIVE_KEYS = DSL.name("live_keys");
    /**
     * The preamble of the first statement of T1, T2 and T4 ({@link RenderedStatement#after}): the rest
     * of the transaction plans without bitmap and sequential scans (see the class comment); the
     * settings end with the transaction ({@code set_config}'s {@code is_local}), so the connection goes
     * back to its pool as it came.
     */
    static final String INDEX_SCANS_ONLY =
            "SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)";

    private static final Field<DayToSecond> ONE_SECOND = DSL.inline(new DayToSecond(0, 0, 0, 1));
    private static final Field<OutboxDeliveryStatus> PENDING = DSL.inline(OutboxDeliveryStatus.pending);
    private static final Field<OutboxDeliveryStatus> DISPATCHED = DSL.inline(OutboxDeliveryStatus.dispatched);
    /** The ready pending deliveries T2 picks, under an alias of their own. */
    private static final OutboxDeliveries READY = OUTBOX_DELIVERIES.as("ready");

    private static final Field<Integer> RETRIES =
            DSL.cardinality(OUTBOX_DELIVERIES.RETRY_DELAYS_SECONDS).as("retries");
    private static final Field<String> PAYLOAD_TEXT = DSL.when(
                    OUTBOX_DELIVERIES.KIND.eq(DSL.inline(OutboxRouteKind.publish)),
                    OUTBOX_EVENTS.PAYLOAD.cast(SQLDataType.CLOB))
            .as("payload_text");

    private final OutboxTables tables;
    private final RouteTable routes;
    private final DeliveryTransitions shared;
    private final IdGenerator ids = IdGenerator.uuidV7();
    private final RouteSnapshot snapshot;
    /** The event types that have routes: {@link #workWaiting}'s events. */
    private final String[] routedTypes;
    /** The event types that have an ordered route: their events with a position in a key are routed by T1o only. */
    private final String[] orderedTypes;
    /** The second half of this table's advisory locks of T1o and T2o. */
    private final int routeLock;

    private final int claimLock;
    private volatile @Nullable Statements rendered;

    public RelayTransitions(OutboxTables tables, RouteTable routes, Clock clock) {
        this.tables = tables;
        this.routes = routes;
        this.shared = new DeliveryTransitions(tables, clock);
        this.snapshot = new RouteSnapshot(routes);
        this.routedTypes = routes.byEventType().entrySet().stream()
                .filter(e -> !e.getValue().isEmpty())
                .map(Map.Entry::getKey)
                .toArray(String[]::new);
        this.orderedTypes = routes.byEventType().entrySet().stream()
                .filter(e -> e.getValue().stream().anyMatch(DeliveryTemplate::ordered))
                .map(Map.Entry::getKey)
                .toArray(String[]::new);
        int table = (tables.schema() + "." + tables.deliveries()).hashCode();
        this.routeLock = table & ~1;
        this.claimLock = table | 1;
    }

    /**
     * What one routing batch did.
     *
     * @param events events routed
     * @param deliveries deliveries created
     * @param seen unrouted events looked at (a full batch means there may be more)
     * @param lastSeen the id of the last event looked at, where the next batch of the pass starts
     * @param unroutedTypes the types of events looked at that have no route
     * @param unkeyed deliveries of ordered routes created for events without an ordering key (they go unordered)
     */
    public record Routed(
            int events, int deliveries, int seen, @Nullable UUID lastSeen, Set<String> unroutedTypes, int unkeyed) {

        /** What one routing batch did, with no delivery of an ordered route for an event without a key. */
        public Routed(int events, int deliveries, int seen, @Nullable UUID lastSeen, Set<String> unroutedTypes) {
            this(events, deliveries, seen, lastSeen, unroutedTypes, 0);
        }

        private Routed plus(Routed ordered) {
            Set<String> types = new LinkedHashSet<>(unroutedTypes);
            types.addAll(ordered.unroutedTypes);
            return new Routed(
                    events + ordered.events,
                    deliveries + ordered.deliveries,
                    Math.max(seen, ordered.seen),
                    lastSeen,
                    types,
                    unkeyed + ordered.unkeyed);
        }
    }

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
        Statements statements = statements(tx);
        // the first batch of a pass also routes the events that wait for ordered routes (T1o)
        Routed ordered = after == null && orderedTypes.length > 0 ? routeOrdered(tx, statements, limit) : null;
        Candidates candidates = new Candidates();
        if (after == null) {
            statements.candidates.query(tx, candidates, orderedTypes, limit);
        } else {
            statements.candidatesAfter.query(tx, candidates, orderedTypes, after, limit);
        }
        Routed routed = candidates.ids.isEmpty()
                ? new Routed(0, 0, 0, after, Set.of())
                : routeCandidates(tx, statements, candidates);
        return ordered == null ? routed : routed.plus(ordered);
    }

    /**
     * T1o: the events with a position in a key, of the types that have an ordered route, read per key
     * in position order ({@code ORDER BY ordering_key, ordering_position LIMIT n}), so that each key's
     * part of a batch is the beginning of what waits for it: the deliveries of a key are created in
     * its order. Positions are taken when recorded, under the key's row lock, so a key's committed
     * events have no hole before a later one. One relay at a time, under a transaction-level advisory
     * lock: another relay's T1o skips its turn rather than route a later part of a key first.
     */
    private Routed routeOrdered(DSLContext tx, Statements statements, int limit) {
        if (!statements.tryLock.query(tx, rs -> rs.next() && rs.getBoolean(1), ORDERED_LOCK, routeLock)) {
            return new Routed(0, 0, 0, null, Set.of());
        }
        Candidates candidates = new Candidates();
        statements.orderedCandidates.query(tx, candidates, orderedTypes, limit);
        return candidates.ids.isEmpty()
                ? new Routed(0, 0, 0, null, Set.of())
                : routeCandidates(tx, statements, candidates);
    }

    /** The unrouted events a routing batch looks at: id, type, and whether the event has no position in a key. */
    private static final class Candidates implements RenderedStatement.Rows<Void> {
        final List<UUID> ids = new ArrayList<>();
        final List<String> types = new ArrayList<>();
        final Set<UUID> unkeyed = new java.util.HashSet<>();

        @Override
        public Void read(java.sql.ResultSet rs) throws java.sql.SQLException {
            while (rs.next()) {
                UUID id = rs.getObject(1, UUID.class);
                ids.add(id);
                types.add(rs.getString(2));
                if (rs.getBoolean(3)) {
                    unkeyed.add(id);
                }
            }
            return null;
        }
    }

    private Routed routeCandidates(DSLContext tx, Statements statements, Candidates candidates) {
        UUID lastSeen = candidates.ids.get(candidates.ids.size() - 1);
        Set<String> unrouted = new LinkedHashSet<>();
        List<UUID> routable = new ArrayList<>(candidates.ids.size());
        Map<UUID, Integer> orderedRoutes = new java.util.HashMap<>();
        RouteSnapshot.Pairs pairs = snapshot.pairs(candidates.ids.size());
        for (int i = 0; i < candidates.ids.size(); i++) {
            UUID id = candidates.ids.get(i);
            List<DeliveryTemplate> eventRoutes = routes.of(candidates.types.get(i));
            if (eventRoutes.isEmpty()) {
                unrouted.add(candidates.types.get(i));
                continue;
            }
            routable.add(id);
            for (DeliveryTemplate route : eventRoutes) {
                pairs.add(ids.next(), id, route);
                if (route.ordered() && candidates.unkeyed.contains(id)) {
                    orderedRoutes.merge(id, 1, Integer::sum);
                }
            }
        }
        if (routable.isEmpty()) {
            return new Routed(0, 0, candidates.ids.size(), lastSeen, unrouted);
        }
        Object[] pairValues = pairs.values();
        Object[] values = new Object[pairValues.length + 2];
        values[0] = shared.now();
        values[1] = routable.toArray(UUID[]::new);
        System.arraycopy(pairValues, 0, values, 2, pairValues.length);
        int[] routed = statements.route.query(
                tx,
                rs -> {
                    int events = 0;
                    int created = 0;
                    int unkeyed = 0;
                    while (rs.next()) {
                        created = events++ == 0 ? rs.getInt(2) : created;
                        unkeyed += orderedRoutes.getOrDefault(rs.getObject(1, UUID.class), 0);
                    }
                    return new int[] {events, created, unkeyed};
                },
                values);
        return new Routed(routed[0], routed[1], candidates.ids.size(), lastSeen, unrouted, routed[2]);
    }

    /** The hot statements, rendered once for this instance's tables (the first transaction's settings). */
    private record Statements(
            RenderedStatement candidates,
            RenderedStatement candidatesAfter,
            RenderedStatement orderedCandidates,
            RenderedStatement tryLock,
            RenderedStatement route,
            RenderedStatement claim,
            RenderedStatement claimOrdered,
            RenderedStatement claimJobs,
            RenderedStatement timeOut,
            RenderedStatement timeOutUnstarted,
            RenderedStatement workWaiting) {}

    /** T2's statement (parameters: now, limit, held queues), for the tests of its plan. */
    RenderedStatement claimStatement(DSLContext tx) {
        return statements(tx).claim;
    }

    /** T2o's statement (parameters: now, limit, held queues), for the tests of its plan. */
    RenderedStatement claimOrderedStatement(DSLContext tx) {
        return statements(tx).claimOrdered;
    }

    /** The test kit's claim (parameters: now, limit, job types), for the tests of its plan. */
    RenderedStatement claimJobsStatement(DSLContext tx) {
        return statements(tx).claimJobs;
    }

    private Statements statements(DSLContext tx) {
        Statements statements = rendered;
        if (statements == null) {
            statements = render(PlannedDsl.planned(tx, tables));
            rendered = statements;
        }
        return statements;
    }

    /**
     * T1's read of the next unrouted events in id order, without locking (the partial index alone
     * serves it), but for those that wait for T1o: a position in a key and a type in {@code ordered}.
     */
    private static org.jooq.Query candidates(
            DSLContext ctx, org.jooq.Condition from, Param<String[]> ordered, Param<Integer> limit) {
        return ctx.select(OUTBOX_EVENTS.ID, OUTBOX_EVENTS.EVENT_TYPE, OUTBOX_EVENTS.ORDERING_POSITION.isNull())
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ROUTED_AT.isNull())
                .and(from)
                .andNot(waitsForOrderedRouting(ordered))
                .orderBy(OUTBOX_EVENTS.ID)
                .limit(limit);
    }

    /**
     * An unrouted event that only T1o routes: it has a position in a key (every event recorded with a
     * key since migration V4), and its type an ordered route. Repeats the predicate of
     * {@code unrouted_keyed_idx}.
     */
    private static org.jooq.Condition waitsForOrderedRouting(Param<String[]> ordered) {
        return OUTBOX_EVENTS
                .ORDERING_KEY
                .isNotNull()
                .and(OUTBOX_EVENTS.ORDERING_POSITION.isNotNull())
                .and(OUTBOX_EVENTS.EVENT_TYPE.eq(DSL.any(ordered)));
    }

    /**
     * The head of its (route, key): no other delivery of the key that {@linkplain KeyRule#holdsItsKey holds it}
     * is before it, or dispatched at all (a requeued earlier delivery waits for the one in flight). Reads
     * {@code ordered_idx}, whose predicate the rule repeats.
     */
    private static org.jooq.Condition headOfKey() {
        OutboxDeliveries ahead = OUTBOX_DELIVERIES.as("ahead");
        return DSL.notExists(DSL.selectOne()
                .from(ahead)
                .where(ahead.JOB_TYPE.eq(READY.JOB_TYPE))
                .and(ahead.QUEUE_NAME.eq(READY.QUEUE_NAME))
                .and(ahead.ORDERING_KEY.eq(READY.ORDERING_KEY))
                .and(KeyRule.holdsItsKey(ahead))
                .and(ahead.ID.ne(READY.ID))
                .and(ahead.STATUS.eq(DISPATCHED).or(ahead.ORDERING_POSITION.lt(READY.ORDERING_POSITION))));
    }

    /**
     * {@code status = 'pending'} for a statement that takes deliveries by id, written
     * {@code cast(status as varchar) = 'pending'} so that the planner cannot match it with a partial
     * index of pending deliveries ({@code ready_idx}, {@code ready_unkeyed_idx}) and the primary key
     * serves the ids: each claim leaves a dead entry in those indexes until a vacuum, which the
     * statistics do not count (OrderedClaimPlanIT), as {@link DeliveryTransitions#DISPATCHED_BY_ID} does for dispatched ones.
     */
    private static org.jooq.Condition pendingById(OutboxDeliveries d) {
        return d.STATUS.cast(SQLDataType.VARCHAR).eq(DSL.inline(OutboxDeliveryStatus.pending.getLiteral()));
    }

    /**
     * The deliveries of {@link #READY} that T2 may claim at {@code now}: pending and available. Written
     * once for the claim and for {@link #workWaiting}'s look, so that a look finds what a claim would.
     */
    private static org.jooq.Condition ready(Field<OffsetDateTime> now) {
        return READY.STATUS.eq(PENDING).and(READY.AVAILABLE_AT.le(now));
    }

    /**
     * Not of a job queue that the relay holds back ({@code held}, its backpressure): publish routes
     * and the other job queues go on. An empty array holds nothing back.
     */
    private static org.jooq.Condition notHeld(Param<String[]> held) {
        return notHeld(READY.KIND, READY.QUEUE_NAME, held);
    }

    private static org.jooq.Condition notHeld(Field<OutboxRouteKind> kind, Field<String> queue, Param<String[]> held) {
        return kind.ne(DSL.inline(OutboxRouteKind.job)).or(queue.ne(DSL.all(held)));
    }

    /**
     * T2o's choice: the ids of up to {@code limit} heads of their (route, key) that are ready now and
     * not held back, oldest available first. The (route, key)s with a live delivery come from a loose
     * scan of {@code ordered_idx} (one probe per key, a recursive CTE); each key's head is its first
     * delivery there that {@linkplain KeyRule#holdsItsKey holds it}; a pending head goes
     * only while none of its key is in flight ({@code ordered_dispatched_idx}: a requeued earlier
     * delivery waits for the one dispatched). Reads about one row per key, not the keys' backlogs.
     */
    private static org.jooq.Select<org.jooq.Record1<UUID>> readyHeads(
            Param<OffsetDateTime> now, Param<Integer> limit, Param<String[]> held) {
        OutboxDeliveries first = OUTBOX_DELIVERIES.as("first_key");
        OutboxDeliveries next = OUTBOX_DELIVERIES.as("next_key");
        OutboxDeliveries head = OUTBOX_DELIVERIES.as("head");
        OutboxDeliveries busy = OUTBOX_DELIVERIES.as("busy");
        Field<String> keyJob = DSL.field(DSL.name(LIVE_KEYS.last(), "job_type"), SQLDataType.CLOB);
        Field<String> keyQueue = DSL.field(DSL.name(LIVE_KEYS.last(), "queue_name"), SQLDataType.CLOB);
        Field<String> key = DSL.field(DSL.name(LIVE_KEYS.last(), "ordering_key"), SQLDataType.CLOB);
        var nextKey = DSL.lateral(DSL.select(next.JOB_TYPE, next.QUEUE_NAME, next.ORDERING_KEY)
                        .from(next)
                        .where(KeyRule.live(next))
                        .and(DSL.row(next.JOB_TYPE, next.QUEUE_NAME, next.ORDERING_KEY)
                                .gt(DSL.row(keyJob, keyQueue, key)))
                        .orderBy(next.JOB_TYPE, next.QUEUE_NAME, next.ORDERING_KEY)
                        .limit(DSL.inline(1)))
                .as("next_key");
        var liveKeys = LIVE_KEYS
                .fields("job_type", "queue_name", "ordering_key")
                .as(DSL.select(first.JOB_TYPE, first.QUEUE_NAME, first.ORDERING_KEY)
                        .from(first)
                        .where(KeyRule.live(first))
                        .orderBy(first.JOB_TYPE, first.QUEUE_NAME, first.ORDERING_KEY)
                        .limit(DSL.inline(1))
                        .unionAll(DSL.select(
                                        nextKey.field(next.JOB_TYPE),
                                        nextKey.field(next.QUEUE_NAME),
                                        nextKey.field(next.ORDERING_KEY))
                                .from(DSL.table(LIVE_KEYS).crossJoin(nextKey))));
        var headOf = DSL.lateral(DSL.select(head.ID, head.STATUS, head.AVAILABLE_AT, head.KIND, head.QUEUE_NAME)
                        .from(head)
                        .where(head.JOB_TYPE.eq(keyJob))
                        .and(head.QUEUE_NAME.eq(keyQueue))
                        .and(head.ORDERING_KEY.eq(key))
                        .and(KeyRule.holdsItsKey(head))
                        .orderBy(head.ORDERING_POSITION)
                        .limit(DSL.inline(1)))
                .as("head");
        return DSL.withRecursive(liveKeys)
                .select(headOf.field(head.ID))
                .from(DSL.table(LIVE_KEYS).crossJoin(headOf))
                .where(headOf.field(head.STATUS).eq(PENDING))
                .and(headOf.field(head.AVAILABLE_AT).le(now))
                .and(notHeld(headOf.field(head.KIND), headOf.field(head.QUEUE_NAME), held))
                .andNotExists(DSL.selectOne()
                        .from(busy)
                        .where(busy.JOB_TYPE.eq(keyJob))
                        .and(busy.QUEUE_NAME.eq(keyQueue))
                        .and(busy.ORDERING_KEY.eq(key))
                        .and(busy.ORDERING_KEY.isNotNull())
                        .and(busy.STATUS.eq(DISPATCHED)))
                .orderBy(headOf.field(head.AVAILABLE_AT))
                .limit(limit);
    }

    /** T2's statement: claims up to {@code limit} ready pending deliveries of {@link #READY} that also match {@code which}. */
    private static org.jooq.Query claimQuery(
            DSLContext ctx, Param<OffsetDateTime> now, Param<Integer> limit, org.jooq.Condition which) {
        return claimQuery(
                ctx,
                now,
                DSL.select(READY.ID)
                        .from(READY)
                        .where(ready(now))
                        .and(which)
                        .orderBy(READY.AVAILABLE_AT)
                        .limit(limit)
                        .forUpdate()
                        .skipLocked());
    }

    /** T2's statement: claims the deliveries of {@code chosen} (ids) that are still pending. */
    private static org.jooq.Query claimQuery(
            DSLContext ctx, Param<OffsetDateTime> now, org.jooq.Select<org.jooq.Record1<UUID>> chosen) {
        return ctx.update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, DISPATCHED)
                .set(OUTBOX_DELIVERIES.DISPATCH_ID, DSL.uuid())
                .set(OUTBOX_DELIVERIES.ATTEMPTS, OUTBOX_DELIVERIES.ATTEMPTS.plus(DSL.inline(1)))
                .set(OUTBOX_DELIVERIES.DISPATCHED_AT, now)
                .set(
                        OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT,
                        now.plus(ONE_SECOND.times(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_SECONDS)))
                .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                .from(OUTBOX_EVENTS)
                // = ANY(ARRAY(...)): the claimed ids reach the primary key, never a scan of the table
                .where(OUTBOX_DELIVERIES.ID.eq(DSL.any(DSL.array(chosen))))
                .and(pendingById(OUTBOX_DELIVERIES))
                .and(OUTBOX_EVENTS.ID.eq(OUTBOX_DELIVERIES.EVENT_ID))
                .returningResult(
                        OUTBOX_DELIVERIES.ID,
                        OUTBOX_DELIVERIES.EVENT_ID,
                        OUTBOX_DELIVERIES.DISPATCH_ID,
                        OUTBOX_DELIVERIES.KIND,
                        OUTBOX_DELIVERIES.JOB_TYPE,
                        OUTBOX_DELIVERIES.QUEUE_NAME,
                        OUTBOX_DELIVERIES.EXCHANGE,
                        OUTBOX_DELIVERIES.ROUTING_KEY,
                        OUTBOX_DELIVERIES.ATTEMPTS,
                        RETRIES,
                        OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_SECONDS,
                        OUTBOX_EVENTS.EVENT_TYPE,
                        OUTBOX_EVENTS.TRACEPARENT,
                        OUTBOX_EVENTS.TRACESTATE,
                        PAYLOAD_TEXT);
    }

    private Statements render(DSLContext ctx) {
        Param<Integer> limit = DSL.param("limit", SQLDataType.INTEGER);
        Param<UUID> after = DSL.param("after", SQLDataType.UUID);
        Param<String[]> ordered = DSL.param("ordered_types", SQLDataType.VARCHAR.array());
        RenderedStatement candidates = RenderedStatement.of(
                        ctx, candidates(ctx, DSL.noCondition(), ordered, limit), ordered, limit)
                .after(INDEX_SCANS_ONLY);
        RenderedStatement candidatesAfter = RenderedStatement.of(
                        ctx, candidates(ctx, OUTBOX_EVENTS.ID.gt(after), ordered, limit), ordered, after, limit)
                .after(INDEX_SCANS_ONLY);
        RenderedStatement orderedCandidates = RenderedStatement.of(
                ctx,
                ctx.select(OUTBOX_EVENTS.ID, OUTBOX_EVENTS.EVENT_TYPE, OUTBOX_EVENTS.ORDERING_POSITION.isNull())
                        .from(OUTBOX_EVENTS)
                        .where(OUTBOX_EVENTS.ROUTED_AT.isNull())
                        .and(waitsForOrderedRouting(ordered))
                        .orderBy(OUTBOX_EVENTS.ORDERING_KEY, OUTBOX_EVENTS.ORDERING_POSITION)
                        .limit(limit),
                ordered,
                limit);
        Param<Integer> lockClass = DSL.param("lock_class", SQLDataType.INTEGER);
        Param<Integer> lockId = DSL.param("lock_id", SQLDataType.INTEGER);
        RenderedStatement tryLock = RenderedStatement.of(
                        ctx,
                        ctx.select(DSL.field(
                                "pg_try_advisory_xact_lock({0}, {1})", SQLDataType.BOOLEAN, lockClass, lockId)),
                        lockClass,
                        lockId)
                .after(INDEX_SCANS_ONLY);

        Param<OffsetDateTime> now = DSL.param("now", SQLDataType.TIMESTAMPWITHTIMEZONE(6));
        Param<UUID[]> routable = DSL.param("routable", SQLDataType.UUID.array());
        RouteSnapshot.Parameters pairs = new RouteSnapshot.Parameters();
        var lockedIds = DSL.select(LOCKED_ID).from(DSL.table(LOCKED));
        List<Param<?>> routeParams = new ArrayList<>(List.of(now, routable));
        routeParams.addAll(pairs.all());
        RenderedStatement route = RenderedStatement.of(
                ctx,
                ctx.with(pairs.table())
                        .with(LOCKED.fields(LOCKED_ID.getName(), LOCKED_KEY.getName(), LOCKED_POSITION.getName())
                                .as(DSL.select(
                                                OUTBOX_EVENTS.ID,
                                                OUTBOX_EVENTS.ORDERING_KEY,
                                                OUTBOX_EVENTS.ORDERING_POSITION)
                                        .from(OUTBOX_EVENTS)
                                        .where(OUTBOX_EVENTS.ID.eq(DSL.any(routable)))
                                        .and(OUTBOX_EVENTS.ROUTED_AT.isNull())
                                        .forUpdate()
                                        .skipLocked()))
                        .with(INSERTED.fields(OUTBOX_DELIVERIES.ID.getName())
                                .as(ctx.insertInto(OUTBOX_DELIVERIES, RouteSnapshot.COLUMNS)
                                        .select(RouteSnapshot.deliveries(
                                                now, DSL.table(LOCKED), LOCKED_ID, LOCKED_KEY, LOCKED_POSITION))
                                        // the unique key (event_id, job_type, queue_name), by its columns: its name
                                        // follows the table's
                                        .onConflict(
                                                OUTBOX_DELIVERIES.EVENT_ID,
                                                OUTBOX_DELIVERIES.JOB_TYPE,
                                                OUTBOX_DELIVERIES.QUEUE_NAME)
                                        .doNothing()
                                        .returningResult(OUTBOX_DELIVERIES.ID)))
                        .update(OUTBOX_EVENTS)
                        .set(OUTBOX_EVENTS.ROUTED_AT, DSL.greatest(now, OUTBOX_EVENTS.CREATED_AT))
                        // = ANY(ARRAY(...)): the locked ids reach the primary key, never a scan of the table
                        .where(OUTBOX_EVENTS.ID.eq(DSL.any(DSL.array(lockedIds))))
                        .and(OUTBOX_EVENTS.ROUTED_AT.isNull())
                        .returningResult(
                                OUTBOX_EVENTS.ID, DSL.field(DSL.selectCount().from(DSL.table(INSERTED)))),
                routeParams.toArray(Param<?>[]::new));

        Param<String[]> held = DSL.param("held", SQLDataType.VARCHAR.array());
        // a relay without ordered routes claims as before V4; with them, its unordered claim leaves the ordered
        // deliveries to T2o
        RenderedStatement claim = RenderedStatement.of(
                        ctx,
                        claimQuery(
                                ctx,
                                now,
                                limit,
                                orderedTypes.length == 0
                                        ? notHeld(held)
                                        : notHeld(held).and(READY.ORDERING_KEY.isNull())),
                        now,
                        limit,
                        held)
                .after(INDEX_SCANS_ONLY);
        // the heads by their ids (the primary key), locked as T2 locks its choice; no second order by available_at,
        // which a
        // plan could serve by walking ready_idx past the keys' backlogs
        RenderedStatement claimOrdered = RenderedStatement.of(
                        ctx,
                        claimQuery(
                                ctx,
                                now,
                                DSL.select(READY.ID)
                                        .from(READY)
                                        .where(READY.ID.eq(DSL.any(DSL.array(readyHeads(now, limit, held)))))
                                        .and(pendingById(READY))
                                        .and(READY.AVAILABLE_AT.le(now))
                                        .forUpdate()
                                        .skipLocked()),
                        now,
                        limit,
                        held)
                .after(INDEX_SCANS_ONLY);
        Param<String[]> jobTypes = DSL.param("job_types", SQLDataType.VARCHAR.array());
        RenderedStatement claimJobs = RenderedStatement.of(
                        ctx,
                        claimQuery(
                                ctx,
                                now,
                                limit,
                                READY.KIND
                                        .eq(DSL.inline(OutboxRouteKind.job))
                                        .and(READY.JOB_TYPE.eq(DSL.any(jobTypes)))
                                        .and(READY.ORDERING_KEY.isNull().or(headOfKey()))),
                        now,
                        limit,
                        jobTypes)
                .after(INDEX_SCANS_ONLY);

        OutboxDeliveries overdue = OUTBOX_DELIVERIES.as("overdue");
        // T4: a publish route's dispatch (no worker starts those), a job picked up and past the timeout counted from
        // its
        // start, or a job never picked up and out of unstarted re-dispatches
        org.jooq.Condition job = overdue.KIND.eq(DSL.inline(OutboxRouteKind.job));
        org.jooq.Condition ranOutOfTime = job.not()
                .or(overdue.STARTED_AT
                        .isNotNull()
                        .and(overdue.STARTED_AT
                                .plus(ONE_SECOND.times(overdue.DELIVERY_TIMEOUT_SECONDS))
                                .le(now)))
                .or(overdue.STARTED_AT.isNull().and(overdue.UNSTARTED_TIMEOUTS.ge(DSL.inline(MAX_UNSTARTED_TIMEOUTS))));
        RenderedStatement timeOut = shared.retryOrFailStatement(
                        ctx,
                        OUTBOX_DELIVERIES.ID.eq(DSL.any(DSL.array(DSL.select(overdue.ID)
                                .from(overdue)
                                .where(overdue.STATUS.eq(DISPATCHED))
                                .and(overdue.DELIVERY_TIMEOUT_AT.le(now))
                                .and(ranOutOfTime)
                                .orderBy(overdue.DELIVERY_TIMEOUT_AT)
                                .limit(limit)
                                .forUpdate()
                                .skipLocked()))),
                        reason -> DSL.when(
                                        OUTBOX_DELIVERIES
                                                .STARTED_AT
                                                .isNull()
                                                .and(OUTBOX_DELIVERIES.KIND.eq(DSL.inline(OutboxRouteKind.job))),
                                        DSL.inline(FailureReason.NEVER_STARTED.code()))
                                .otherwise(reason),
                        now,
                        limit)
                .after(INDEX_SCANS_ONLY);
        RenderedStatement timeOutUnstarted = RenderedStatement.of(
                        ctx,
                        ctx.update(OUTBOX_DELIVERIES)
                                .set(OUTBOX_DELIVERIES.STATUS, PENDING)
                                .set(OUTBOX_DELIVERIES.ATTEMPTS, OUTBOX_DELIVERIES.ATTEMPTS.minus(DSL.inline(1)))
                                .set(
                                        OUTBOX_DELIVERIES.UNSTARTED_TIMEOUTS,
                                        OUTBOX_DELIVERIES.UNSTARTED_TIMEOUTS.plus(DSL.inline(1)))
                                .set(OUTBOX_DELIVERIES.DISPATCHED_AT, DSL.inline((OffsetDateTime) null))
                                .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, DSL.inline((OffsetDateTime) null))
                                .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                                .where(OUTBOX_DELIVERIES.ID.eq(DSL.any(DSL.array(DSL.select(overdue.ID)
                                        .from(overdue)
                                        .where(overdue.STATUS.eq(DISPATCHED))
                                        .and(overdue.DELIVERY_TIMEOUT_AT.le(now))
                                        .and(overdue.KIND.eq(DSL.inline(OutboxRouteKind.job)))
                                        .and(overdue.STARTED_AT.isNull())
                                        .and(overdue.UNSTARTED_TIMEOUTS.lt(DSL.inline(MAX_UNSTARTED_TIMEOUTS)))
                                        .orderBy(overdue.DELIVERY_TIMEOUT_AT)
                                        .limit(limit)
                                        .forUpdate()
                                        .skipLocked()))))
                                .and(DeliveryTransitions.DISPATCHED_BY_ID)
                                .and(OUTBOX_DELIVERIES.STARTED_AT.isNull())
                                .returningResult(
                                        OUTBOX_DELIVERIES.ID,
                                        OUTBOX_DELIVERIES.EVENT_ID,
                                        OUTBOX_DELIVERIES.DISPATCH_ID,
                                        OUTBOX_DELIVERIES.JOB_TYPE,
                                        OUTBOX_DELIVERIES.QUEUE_NAME,
                                        OUTBOX_DELIVERIES.UNSTARTED_TIMEOUTS),
                        now,
                        limit)
                .after(INDEX_SCANS_ONLY);
        Param<String[]> routedTypes = DSL.param("routed_types", SQLDataType.VARCHAR.array());
        RenderedStatement workWaiting = RenderedStatement.of(
                        ctx,
                        ctx.select(DSL.field(DSL.exists(DSL.selectOne()
                                        .from(OUTBOX_EVENTS)
                                        .where(OUTBOX_EVENTS.ROUTED_AT.isNull())
                                        .and(OUTBOX_EVENTS.EVENT_TYPE.eq(DSL.any(routedTypes))))
                                .or(DSL.exists(DSL.selectOne()
                                        .from(READY)
                                        .where(ready(now))
                                        .and(notHeld(held))
                                        .and(
                                                orderedTypes.length == 0
                                                        ? DSL.noCondition()
                                                        : READY.ORDERING_KEY.isNull())))
                                .or(
                                        orderedTypes.length == 0
                                                ? DSL.falseCondition()
                                                : DSL.exists(readyHeads(now, DSL.inline(1), held))))),
                        routedTypes,
                        now,
                        held)
                .after(INDEX_SCANS_ONLY);
        return new Statements(
                candidates,
                candidatesAfter,
                orderedCandidates,
                tryLock,
                route,
                claim,
                claimOrdered,
                claimJobs,
                timeOut,
                timeOutUnstarted,
                workWaiting);
    }

    /**
     * Whether a pass would find work now: an unrouted event of a type that has routes, or a pending
     * delivery that is available. One read of the two partial indexes, with index scans only like the
     * transitions', in the round trip of one statement: on a connection in auto-commit mode it needs no
     * transaction (the settings hold until the statement's end). Changes nothing; a looping relay asks
     * it between passes, so that a look that finds nothing costs one statement instead of a pass.
     */
    public boolean workWaiting(DSLContext ctx) {
        return workWaiting(ctx, Set.of());
    }

    /** {@link #workWaiting(DSLContext)} that does not count pending deliveries of the job queues in {@code heldQueues}. */
    public boolean workWaiting(DSLContext ctx, Set<String> heldQueues) {
        return statements(ctx)
                .workWaiting
                .query(
                        ctx,
                        rs -> rs.next() && rs.getBoolean(1),
                        routedTypes,
                        shared.now(),
                        heldQueues.toArray(String[]::new));
    }

    /**
     * T2: one statement claims up to {@code limit} ready pending deliveries ({@code FOR UPDATE SKIP
     * LOCKED}, oldest available first): status dispatched, a new dispatch id, attempts + 1,
     * dispatched_at and delivery_timeout_at; returns what the messages need.
     */
    public List<Claimed> claim(DSLContext tx, int limit) {
        return claimExcept(tx, limit, Set.of());
    }

    /**
     * T2 that leaves the pending deliveries of the job queues in {@code heldQueues} alone (the relay's
     * backpressure: those queues hold as many messages as the relay lets them); publish routes and
     * other queues are claimed as by {@link #claim(DSLContext, int)}.
     */
    public List<Claimed> claimExcept(DSLContext tx, int limit, Set<String> heldQueues) {
        Statements statements = statements(tx);
        OffsetDateTime now = shared.now();
        String[] held = heldQueues.toArray(String[]::new);
        List<Claimed> claimed = statements.claim.query(tx, RelayTransitions::claimed, now, limit, held);
        // T2o after the lock, in a statement of its own: its snapshot then holds every claim of the relay before it
        if (orderedTypes.length > 0
                && statements.tryLock.query(tx, rs -> rs.next() && rs.getBoolean(1), ORDERED_LOCK, claimLock)) {
            List<Claimed> ordered = statements.claimOrdered.query(tx, RelayTransitions::claimed, now, limit, held);
            if (!ordered.isEmpty()) {
                List<Claimed> all = new ArrayList<>(claimed);
                all.addAll(ordered);
                return all;
            }
        }
        return claimed;
    }

    /**
     * T2 restricted to job routes of {@code jobTypes}: the same statement as {@link #claim} with
     * {@code kind = 'job' AND job_type = ANY(?)} added to its choice of ready deliveries. For a runner
     * that handles some job types itself, without a broker (the test kit, outbox-testkit); other deliveries stay
     * pending, untouched.
     */
    public List<Claimed> claim(DSLContext tx, int limit, Collection<String> jobTypes) {
        return statements(tx)
                .claimJobs
                .query(tx, RelayTransitions::claimed, shared.now(), limit, jobTypes.toArray(String[]::new));
    }

    private static List<Claimed> claimed(java.sql.ResultSet rs) throws java.sql.SQLException {
        List<Claimed> result = new ArrayList<>();
        while (rs.next()) {
            result.add(new Claimed(
                    rs.getObject(1, UUID.class),
                    rs.getObject(2, UUID.class),
                    rs.getObject(3, UUID.class),
                    OutboxRouteKind.publish.getLiteral().equals(rs.getString(4)) ? RouteKind.PUBLISH : RouteKind.JOB,
                    rs.getString(5),
                    rs.getString(6),
                    rs.getString(7),
                    rs.getString(8),
                    rs.getInt(9),
                    rs.getInt(10),
                    rs.getInt(11),
                    rs.getString(12),
                    rs.getString(13),
                    rs.getString(14),
                    rs.getString(15)));
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
     * status dispatched, the dispatch id and {@code started_at IS NULL}; returns the ids of the
     * deliveries it released.
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
                .and(DeliveryTransitions.DISPATCHED_BY_ID)
                // a dispatch that a worker picked up was sent: it is never released as unsent
                .and(OUTBOX_DELIVERIES.STARTED_AT.isNull())
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
    public List<RetryOutcome> publishRefused(
            DSLContext tx, UUID[] deliveryIds, UUID[] dispatchIds, FailureReason exhaustedReason) {
        return shared.retryOrFail(
                tx,
                OUTBOX_DELIVERIES
                        .ID
                        .eq(DSL.any(deliveryIds))
                        .and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(DSL.any(dispatchIds))),
                exhaustedReason);
    }

    /**
     * T4: up to {@code limit} dispatched deliveries whose {@code delivery_timeout_at} has passed
     * ({@code FOR UPDATE SKIP LOCKED}) go through retry-or-fail with {@code timeout}.
     */
    public List<RetryOutcome> timeOut(DSLContext tx, int limit) {
        return shared.retryOrFail(tx, statements(tx).timeOut, FailureReason.TIMEOUT, shared.now(), limit);
    }

    /**
     * A dispatch that timed out before any worker picked it up (T4u), sent again without counting.
     *
     * @param unstartedTimeouts how many dispatches of this delivery have now timed out unstarted
     */
    public record UnstartedTimeout(
            UUID deliveryId, UUID eventId, UUID dispatchId, String jobType, String queue, int unstartedTimeouts) {}

    /**
     * T4u: up to {@code limit} dispatched deliveries of job routes past their {@code delivery_timeout_at} that no
     * worker picked up ({@code started_at IS NULL}) and that have timed out unstarted fewer than
     * {@link #MAX_UNSTARTED_TIMEOUTS} times ({@code FOR UPDATE SKIP LOCKED}) go back to pending as they
     * were before T2: {@code attempts - 1} (the attempt never ran), {@code available_at} kept (they
     * are claimed again first), {@code dispatched_at} and {@code delivery_timeout_at} cleared,
     * {@code unstarted_timeouts + 1}; {@code dispatch_id} stays, so the message still in a queue, if
     * any, finds no current dispatch. Past the bound, {@link #timeOut} takes them with the retries of
     * their route and, when none is left, the reason {@code never_started}.
     */
    public List<UnstartedTimeout> timeOutUnstarted(DSLContext tx, int limit) {
        return statements(tx)
                .timeOutUnstarted
                .query(
                        tx,
                        rs -> {
                            List<UnstartedTimeout> result = new ArrayList<>();
                            while (rs.next()) {
                                result.add(new UnstartedTimeout(
                                        rs.getObject(1, UUID.class),
                                        rs.getObject(2, UUID.class),
                                        rs.getObject(3, UUID.class),
                                        rs.getString(4),
                                        rs.getString(5),
                                        rs.getInt(6)));
                            }
                            return result;
                        },
                        shared.now(),
                        limit);
    }
}
