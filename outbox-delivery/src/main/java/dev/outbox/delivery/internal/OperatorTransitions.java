package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS_KEYS;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.OutboxDeliveries;
import dev.outbox.schema.tables.OutboxEventsKeys;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SortField;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The operator's edges of the delivery state machine, one guarded statement each:
 * <ul>
 *   <li>T9 {@link #requeue}: failed → pending, attempts 0, available now, failure and dispatch
 *       fields cleared, guarded by {@code status = 'failed'} (a delivery that changed meanwhile is
 *       left alone and simply not returned);</li>
 *   <li>the removal of failed deliveries ({@link #removeFailed}) and the events they leave with no
 *       delivery;</li>
 *   <li>T10 retention: {@link #purgeCompleted}, {@link #purgeFailed}, {@link #purgeFinishedEvents}, {@link #purgeKeys},
 *       {@link #purgeUnrouted}, each one batch of at most {@code limit} rows, oldest first, locked
 *       {@code FOR UPDATE SKIP LOCKED} so that a row someone else holds is left for the next run.</li>
 * </ul>
 * Every purge touches only rows no relay or worker changes any more: completed deliveries, failed
 * ones (which only T9 changes), routed events that have no delivery left (T1 creates deliveries only
 * for unrouted events), and unrouted events only through {@link #purgeUnrouted}, which the operator
 * asks for explicitly. Each {@code count...} method counts with the predicate of its statement, for
 * a dry run.
 */
public final class OperatorTransitions {

    private static final Field<OutboxDeliveryStatus> FAILED = DSL.inline(OutboxDeliveryStatus.failed);
    private static final Field<OutboxDeliveryStatus> COMPLETED = DSL.inline(OutboxDeliveryStatus.completed);

    private final OutboxTables tables;
    private final Clock clock;

    public OperatorTransitions(OutboxTables tables, Clock clock) {
        this.tables = tables;
        this.clock = clock;
    }

    private OffsetDateTime now() {
        return OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC);
    }

    private DSLContext planned(DSLContext ctx) {
        return PlannedDsl.planned(ctx, tables);
    }

    /**
     * T9 for the given deliveries in one statement: those still failed go back to pending with
     * attempts 0 and no unstarted timeouts, available now, failure, dispatch and start fields cleared. Returns the ids it requeued;
     * the others (not failed, or not there) are left alone.
     */
    public Set<UUID> requeue(DSLContext ctx, Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return Set.of();
        }
        OffsetDateTime now = now();
        return new HashSet<>(planned(ctx)
                .update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.pending)
                .set(OUTBOX_DELIVERIES.ATTEMPTS, 0)
                .set(OUTBOX_DELIVERIES.AVAILABLE_AT, now)
                .set(OUTBOX_DELIVERIES.FAILED_AT, DSL.inline((OffsetDateTime) null))
                .set(OUTBOX_DELIVERIES.FAILURE_REASON, DSL.inline((String) null))
                .set(OUTBOX_DELIVERIES.DISPATCH_ID, DSL.inline((UUID) null))
                .set(OUTBOX_DELIVERIES.DISPATCHED_AT, DSL.inline((OffsetDateTime) null))
                .set(OUTBOX_DELIVERIES.STARTED_AT, DSL.inline((OffsetDateTime) null))
                .set(OUTBOX_DELIVERIES.UNSTARTED_TIMEOUTS, 0)
                .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, DSL.inline((OffsetDateTime) null))
                .set(OUTBOX_DELIVERIES.SKIPPED_AT, DSL.inline((OffsetDateTime) null))
                .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                .where(OUTBOX_DELIVERIES.STATUS.eq(FAILED))
                .and(OUTBOX_DELIVERIES.ID.eq(DSL.any(ids.toArray(UUID[]::new))))
                .returning(OUTBOX_DELIVERIES.ID)
                .fetch(OUTBOX_DELIVERIES.ID));
    }

    /**
     * A key blocked on an ordered route: its head failed for good under the policy {@code block},
     * and no operator has skipped it.
     *
     * @param failedAt when the head failed; its age is the key's
     */
    public record BlockedKey(
            String jobType,
            String queue,
            String orderingKey,
            UUID deliveryId,
            UUID eventId,
            String failureReason,
            OffsetDateTime failedAt) {}

    /** The condition of a blocked head: failed, of an ordered route with the policy {@code block}, not skipped. */
    public static final Condition BLOCKING_HEAD =
            OUTBOX_DELIVERIES.STATUS.eq(FAILED).and(KeyRule.blocking(OUTBOX_DELIVERIES));

    /** Up to {@code limit} blocked keys, the oldest failure first (read from {@code failed_idx}). */
    public List<BlockedKey> blockedKeys(DSLContext ctx, int limit) {
        return blocked(ctx, limit, OUTBOX_DELIVERIES.FAILED_AT.asc(), OUTBOX_DELIVERIES.ID.asc());
    }

    /** Up to {@code limit} blocked keys, the newest failure first (read from {@code failed_idx}): what a watch for new blocks reads. */
    public List<BlockedKey> newestBlockedKeys(DSLContext ctx, int limit) {
        return blocked(ctx, limit, OUTBOX_DELIVERIES.FAILED_AT.desc(), OUTBOX_DELIVERIES.ID.desc());
    }

    private List<BlockedKey> blocked(DSLContext ctx, int limit, SortField<?>... order) {
        return planned(ctx)
                .select(
                        OUTBOX_DELIVERIES.JOB_TYPE,
                        OUTBOX_DELIVERIES.QUEUE_NAME,
                        OUTBOX_DELIVERIES.ORDERING_KEY,
                        OUTBOX_DELIVERIES.ID,
                        OUTBOX_DELIVERIES.EVENT_ID,
                        OUTBOX_DELIVERIES.FAILURE_REASON,
                        OUTBOX_DELIVERIES.FAILED_AT)
                .from(OUTBOX_DELIVERIES)
                .where(BLOCKING_HEAD)
                .orderBy(order)
                .limit(limit)
                .fetch(r -> new BlockedKey(
                        r.value1(), r.value2(), r.value3(), r.value4(), r.value5(), r.value6(), r.value7()));
    }

    /**
     * Skip: the given blocked heads stay failed but no longer hold their keys ({@code skipped_at} set);
     * each key goes on with its next event. Guarded by {@link #BLOCKING_HEAD}; returns the ids it skipped.
     * To run a head again instead, in its place in the key, {@link #requeue} it.
     */
    public Set<UUID> skip(DSLContext ctx, Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return Set.of();
        }
        OffsetDateTime now = now();
        return new HashSet<>(planned(ctx)
                .update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.SKIPPED_AT, now)
                .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                .where(BLOCKING_HEAD)
                .and(OUTBOX_DELIVERIES.ID.eq(DSL.any(ids.toArray(UUID[]::new))))
                .returning(OUTBOX_DELIVERIES.ID)
                .fetch(OUTBOX_DELIVERIES.ID));
    }

    /**
     * What one removal did.
     *
     * @param deliveries the ids of the failed deliveries deleted
     * @param events the number of their events deleted because no delivery was left to them
     */
    public record Removed(Set<UUID> deliveries, int events) {
        public Removed {
            deliveries = Set.copyOf(deliveries);
        }
    }

    /**
     * Deletes those of the given deliveries that are failed, then those of their events that have no
     * delivery left, in the caller's transaction (two statements, both guarded).
     */
    public Removed removeFailed(DSLContext ctx, Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return new Removed(Set.of(), 0);
        }
        DSLContext dsl = planned(ctx);
        var removed = dsl.deleteFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.STATUS.eq(FAILED))
                .and(OUTBOX_DELIVERIES.ID.eq(DSL.any(ids.toArray(UUID[]::new))))
                .returning(OUTBOX_DELIVERIES.ID, OUTBOX_DELIVERIES.EVENT_ID)
                .fetch();
        if (removed.isEmpty()) {
            return new Removed(Set.of(), 0);
        }
        UUID[] eventIds = removed.stream()
                .map(r -> r.get(OUTBOX_DELIVERIES.EVENT_ID))
                .distinct()
                .toArray(UUID[]::new);
        int events = dsl.deleteFrom(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.eq(DSL.any(eventIds)))
                .and(finished())
                .execute();
        return new Removed(new HashSet<>(removed.map(r -> r.get(OUTBOX_DELIVERIES.ID))), events);
    }

    /**
     * How many events {@link #removeFailed} of these ids would delete: the events of the failed ones
     * whose every delivery is among them.
     */
    public int countEventsLeftByRemoval(DSLContext ctx, Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        UUID[] array = ids.toArray(UUID[]::new);
        OutboxDeliveries d = OUTBOX_DELIVERIES.as("d");
        OutboxDeliveries other = OUTBOX_DELIVERIES.as("other");
        return planned(ctx)
                .fetchCount(
                        OUTBOX_EVENTS,
                        OUTBOX_EVENTS
                                .ROUTED_AT
                                .isNotNull()
                                .and(DSL.exists(DSL.selectOne()
                                        .from(d)
                                        .where(d.EVENT_ID.eq(OUTBOX_EVENTS.ID))
                                        .and(d.STATUS.eq(FAILED))
                                        .and(d.ID.eq(DSL.any(array)))))
                                .and(DSL.notExists(DSL.selectOne()
                                        .from(other)
                                        .where(other.EVENT_ID.eq(OUTBOX_EVENTS.ID))
                                        .and(other.STATUS.ne(FAILED).or(other.ID.ne(DSL.all(array)))))));
    }

    /** T10: deletes up to {@code limit} completed deliveries completed before {@code before}, oldest first. */
    public int purgeCompleted(DSLContext ctx, OffsetDateTime before, int limit) {
        return purgeDeliveries(ctx, completedBefore(OUTBOX_DELIVERIES, before), OUTBOX_DELIVERIES.COMPLETED_AT, limit);
    }

    /** T10: deletes up to {@code limit} failed deliveries failed before {@code before}, oldest first. */
    public int purgeFailed(DSLContext ctx, OffsetDateTime before, int limit) {
        return purgeDeliveries(ctx, failedBefore(OUTBOX_DELIVERIES, before), OUTBOX_DELIVERIES.FAILED_AT, limit);
    }

    public int countCompleted(DSLContext ctx, OffsetDateTime before) {
        return planned(ctx).fetchCount(OUTBOX_DELIVERIES, completedBefore(OUTBOX_DELIVERIES, before));
    }

    public int countFailed(DSLContext ctx, OffsetDateTime before) {
        return planned(ctx).fetchCount(OUTBOX_DELIVERIES, failedBefore(OUTBOX_DELIVERIES, before));
    }

    private int purgeDeliveries(DSLContext ctx, Condition purgeable, Field<OffsetDateTime> age, int limit) {
        OutboxDeliveries d = OUTBOX_DELIVERIES;
        return planned(ctx)
                .deleteFrom(d)
                .where(d.ID.in(DSL.select(d.ID)
                        .from(d)
                        .where(purgeable)
                        .orderBy(age)
                        .limit(limit)
                        .forUpdate()
                        .skipLocked()))
                .execute();
    }

    // the partial index predicates repeated literally, so that the indexes serve the purge whatever the statistics
    private static Condition completedBefore(OutboxDeliveries d, OffsetDateTime before) {
        return d.STATUS.eq(COMPLETED).and(d.COMPLETED_AT.lt(before));
    }

    private static Condition failedBefore(OutboxDeliveries d, OffsetDateTime before) {
        return d.STATUS.eq(FAILED).and(d.FAILED_AT.lt(before));
    }

    /** A routed event with no delivery left: nothing will ever change it again. */
    private static Condition finished() {
        OutboxDeliveries d = OUTBOX_DELIVERIES.as("left");
        return OUTBOX_EVENTS
                .ROUTED_AT
                .isNotNull()
                .and(DSL.notExists(DSL.selectOne().from(d).where(d.EVENT_ID.eq(OUTBOX_EVENTS.ID))));
    }

    /**
     * One batch of the event sweep.
     *
     * @param deleted events deleted
     * @param last the greatest id deleted (where the next batch starts), null when none
     */
    public record Swept(int deleted, @Nullable UUID last) {}

    /**
     * T10: deletes up to {@code limit} routed events that have no delivery left, in id order after
     * {@code after} (from the first when null).
     */
    public Swept purgeFinishedEvents(DSLContext ctx, @Nullable UUID after, int limit) {
        Condition from = after == null ? DSL.noCondition() : OUTBOX_EVENTS.ID.gt(after);
        List<UUID> ids = planned(ctx)
                .deleteFrom(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.in(DSL.select(OUTBOX_EVENTS.ID)
                        .from(OUTBOX_EVENTS)
                        .where(from)
                        .and(finished())
                        .orderBy(OUTBOX_EVENTS.ID)
                        .limit(limit)
                        .forUpdate()
                        .skipLocked()))
                .returning(OUTBOX_EVENTS.ID)
                .fetch(OUTBOX_EVENTS.ID);
        return new Swept(
                ids.size(),
                ids.stream().max(OperatorTransitions::compareAsPostgres).orElse(null));
    }

    /**
     * How many events {@link #purgeFinishedEvents} would delete once the deliveries that
     * {@link #purgeCompleted} and {@link #purgeFailed} would delete are gone (null: that purge is not run).
     */
    public int countFinishedEvents(
            DSLContext ctx, @Nullable OffsetDateTime completedBefore, @Nullable OffsetDateTime failedBefore) {
        OutboxDeliveries d = OUTBOX_DELIVERIES.as("left");
        Condition purged = DSL.falseCondition();
        if (completedBefore != null) {
            purged = purged.or(completedBefore(d, completedBefore));
        }
        if (failedBefore != null) {
            purged = purged.or(failedBefore(d, failedBefore));
        }
        return planned(ctx)
                .fetchCount(
                        OUTBOX_EVENTS,
                        OUTBOX_EVENTS
                                .ROUTED_AT
                                .isNotNull()
                                .and(DSL.notExists(DSL.selectOne()
                                        .from(d)
                                        .where(d.EVENT_ID.eq(OUTBOX_EVENTS.ID))
                                        .andNot(purged))));
    }

    /**
     * One batch of the keys sweep.
     *
     * @param deleted keys deleted
     * @param last the greatest key of a full batch (where the next batch starts), null when the sweep is done
     */
    public record KeysSwept(int deleted, @Nullable String last) {}

    /**
     * T10: deletes up to {@code limit} rows of the keys table (after {@code after}, in key order) whose
     * key has nothing left to order: no unrouted event and no delivery of an ordered route that is not
     * completed. The key's next event starts again at position 1, and nothing it could be compared
     * with is left. Two statements: the first locks the rows, skipping those a recording transaction
     * holds; the second checks again and deletes, with a snapshot taken after the locks, so that it
     * sees every recording of those keys that committed before them.
     */
    public KeysSwept purgeKeys(DSLContext ctx, @Nullable String after, int limit) {
        OutboxEventsKeys k = OUTBOX_EVENTS_KEYS;
        DSLContext planned = planned(ctx);
        List<String> locked = planned.select(k.ORDERING_KEY)
                .from(k)
                .where(after == null ? DSL.noCondition() : k.ORDERING_KEY.gt(after))
                .and(nothingToOrder(k.ORDERING_KEY))
                .orderBy(k.ORDERING_KEY)
                .limit(limit)
                .forUpdate()
                .skipLocked()
                .fetch(k.ORDERING_KEY);
        int deleted = locked.isEmpty()
                ? 0
                : planned.deleteFrom(k)
                        .where(k.ORDERING_KEY.eq(DSL.any(locked.toArray(String[]::new))))
                        .and(nothingToOrder(k.ORDERING_KEY))
                        .execute();
        return new KeysSwept(deleted, locked.size() < limit ? null : locked.get(locked.size() - 1));
    }

    /** How many keys {@link #purgeKeys} would delete now. */
    public int countKeys(DSLContext ctx) {
        return planned(ctx).fetchCount(OUTBOX_EVENTS_KEYS, nothingToOrder(OUTBOX_EVENTS_KEYS.ORDERING_KEY));
    }

    /**
     * No unrouted event with {@code key} ({@code unrouted_keyed_idx}) and no live delivery of an ordered
     * route with it (one pass over {@code ordered_idx}, hashed: that index leads with the route).
     */
    private static Condition nothingToOrder(Field<String> key) {
        OutboxDeliveries live = OUTBOX_DELIVERIES.as("live");
        return DSL.notExists(DSL.selectOne()
                        .from(OUTBOX_EVENTS)
                        .where(OUTBOX_EVENTS.ROUTED_AT.isNull())
                        .and(OUTBOX_EVENTS.ORDERING_KEY.isNotNull())
                        .and(OUTBOX_EVENTS.ORDERING_KEY.eq(key)))
                .and(key.notIn(DSL.select(live.ORDERING_KEY)
                        .from(live)
                        .where(live.ORDERING_KEY.isNotNull())
                        .and(live.STATUS.ne(COMPLETED))));
    }

    /**
     * T10, only when an operator asks: deletes up to {@code limit} events that were never routed and
     * were recorded before {@code before}, oldest first. A relay routing one of them holds its lock,
     * so it is skipped; one routed meanwhile no longer matches.
     */
    public int purgeUnrouted(DSLContext ctx, OffsetDateTime before, int limit) {
        return planned(ctx)
                .deleteFrom(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.in(DSL.select(OUTBOX_EVENTS.ID)
                        .from(OUTBOX_EVENTS)
                        .where(unroutedBefore(before))
                        .orderBy(OUTBOX_EVENTS.ID)
                        .limit(limit)
                        .forUpdate()
                        .skipLocked()))
                .execute();
    }

    public int countUnrouted(DSLContext ctx, OffsetDateTime before) {
        return planned(ctx).fetchCount(OUTBOX_EVENTS, unroutedBefore(before));
    }

    private static Condition unroutedBefore(OffsetDateTime before) {
        return OUTBOX_EVENTS.ROUTED_AT.isNull().and(OUTBOX_EVENTS.CREATED_AT.lt(before));
    }

    /** PostgreSQL orders uuids by their bytes, unsigned; {@link UUID#compareTo} compares signed longs. */
    static int compareAsPostgres(UUID a, UUID b) {
        int high = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return high != 0 ? high : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }
}
