package dev.outbox.admin;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.api.LogText;
import dev.outbox.api.NotifyChannels;
import dev.outbox.api.Outbox;
import dev.outbox.delivery.internal.OperatorTransitions;
import dev.outbox.delivery.internal.PlannedDsl;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.OutboxDeliveries;
import dev.outbox.schema.tables.OutboxEvents;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's commands over the outbox tables, for a DataSource and the tables' names:
 *
 * <pre>{@code
 * OutboxAdmin admin = OutboxAdmin.of(dataSource, OutboxTables.defaults());
 * FailedPage page = admin.listFailed(FailedFilter.all().queue("emails"), 50, null);
 * ChangeResult wouldBe = admin.requeue(FailedFilter.all().reason("timeout"), true);   // dry run
 * ChangeResult done = admin.requeue(FailedFilter.all().reason("timeout"), false);
 * PurgeResult purged = admin.purge(Retention.of().completed(Duration.ofDays(7)), false);
 * }</pre>
 *
 * <p>Reads run outside any transaction. Every change goes in batches ({@link #DEFAULT_BATCH_SIZE}
 * rows, or the retention's batch size), each batch one guarded statement of
 * {@link OperatorTransitions} in a transaction of its own: no lock outlives a batch. A dry run
 * reads the same rows with the same predicates and changes nothing; without concurrent changes its
 * counts are the real run's. A requeue or removal by filter takes only the failures that happened
 * before it started, so a delivery that fails again meanwhile is not chased.
 *
 * <p>Database errors surface as jOOQ's unchecked {@code DataAccessException}.
 */
public final class OutboxAdmin {

    /** The rows a requeue or removal handles per statement. */
    public static final int DEFAULT_BATCH_SIZE = 1_000;
    /** The largest page {@link #listFailed} returns. */
    public static final int MAX_PAGE = 10_000;

    private static final Logger log = LoggerFactory.getLogger(OutboxAdmin.class);
    private static final OutboxDeliveries D = OUTBOX_DELIVERIES;
    private static final OutboxEvents E = OUTBOX_EVENTS;
    private static final Field<OutboxDeliveryStatus> FAILED = DSL.inline(OutboxDeliveryStatus.failed);

    private final DataSource dataSource;
    private final OutboxTables tables;
    private final Clock clock;
    private final OperatorTransitions transitions;
    private final int batchSize;
    private final @Nullable String notifyChannel;

    private OutboxAdmin(
            DataSource dataSource, OutboxTables tables, Clock clock, int batchSize, @Nullable String notifyChannel) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.tables = Objects.requireNonNull(tables, "tables");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.transitions = new OperatorTransitions(tables, clock);
        this.batchSize = batchSize;
        this.notifyChannel = notifyChannel;
    }

    public static OutboxAdmin of(DataSource dataSource, OutboxTables tables) {
        return of(dataSource, tables, Clock.systemUTC());
    }

    /** With the clock that says what "now" and "older than" mean (tests fix it). */
    public static OutboxAdmin of(DataSource dataSource, OutboxTables tables, Clock clock) {
        return new OutboxAdmin(dataSource, tables, clock, DEFAULT_BATCH_SIZE, Outbox.DEFAULT_NOTIFY_CHANNEL);
    }

    /** The same admin with requeues and removals in batches of {@code size} (1..100,000). */
    public OutboxAdmin withBatchSize(int size) {
        if (size < 1 || size > Retention.MAX_BATCH_SIZE) {
            throw new IllegalArgumentException(
                    "batch size must be from 1 to " + Retention.MAX_BATCH_SIZE + ", got " + size);
        }
        return new OutboxAdmin(dataSource, tables, clock, size, notifyChannel);
    }

    /**
     * The same admin, waking the relays that LISTEN on {@code channel} (the relay's
     * {@code OUTBOX_NOTIFY_CHANNEL}) when a requeue or a skip changed something: one NOTIFY per
     * batch, delivered as the batch commits, as a recording sends one. Default
     * {@value Outbox#DEFAULT_NOTIFY_CHANNEL}.
     */
    public OutboxAdmin withNotifyChannel(String channel) {
        if (channel == null || !NotifyChannels.isValid(channel)) {
            throw new IllegalArgumentException(
                    "notifyChannel must be " + NotifyChannels.RULE + ", got '" + LogText.of(channel) + "'");
        }
        return new OutboxAdmin(dataSource, tables, clock, batchSize, channel);
    }

    /** The same admin, sending no NOTIFY: relays find what it requeued or unblocked at their next poll. */
    public OutboxAdmin withoutNotifications() {
        return new OutboxAdmin(dataSource, tables, clock, batchSize, null);
    }

    /** The channel a requeue or skip notifies, if any. */
    public Optional<String> notifyChannel() {
        return Optional.ofNullable(notifyChannel);
    }

    /** Wakes the listening relays when {@code changed} is not empty; the NOTIFY goes out when {@code ctx}'s transaction commits. */
    private Set<UUID> wakingRelays(DSLContext ctx, Set<UUID> changed) {
        if (notifyChannel != null && !changed.isEmpty()) {
            ctx.select(DSL.function("pg_notify", Object.class, DSL.val(notifyChannel), DSL.inline("")))
                    .fetch();
        }
        return changed;
    }

    public OutboxTables tables() {
        return tables;
    }

    private DSLContext dsl() {
        return PlannedDsl.planned(DSL.using(dataSource, SQLDialect.POSTGRES), tables);
    }

    private <T> T inTransaction(Function<DSLContext, T> work) {
        return dsl().transactionResult(configuration -> work.apply(configuration.dsl()));
    }

    private OffsetDateTime now() {
        return OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC);
    }

    // ---------------------------------------------------------------- listing

    /**
     * Up to {@code limit} failed deliveries matching {@code filter}, oldest failure first (then by id),
     * starting after {@code after} (from the oldest when null).
     */
    public FailedPage listFailed(FailedFilter filter, int limit, FailedPage.@Nullable Cursor after) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("page size must be from 1 to " + MAX_PAGE + ", got " + limit);
        }
        List<FailedDelivery> rows = dsl().select(
                        D.ID,
                        D.EVENT_ID,
                        E.EVENT_TYPE,
                        D.JOB_TYPE,
                        D.QUEUE_NAME,
                        D.EXCHANGE,
                        D.ROUTING_KEY,
                        D.ATTEMPTS,
                        D.FAILURE_REASON,
                        D.FAILED_AT,
                        D.CREATED_AT)
                .from(D)
                .join(E)
                .on(E.ID.eq(D.EVENT_ID))
                .where(matching(filter, null))
                .and(after(after))
                .orderBy(D.FAILED_AT, D.ID)
                .limit(limit + 1)
                .fetch(r -> new FailedDelivery(
                        r.get(D.ID),
                        r.get(D.EVENT_ID),
                        r.get(E.EVENT_TYPE),
                        r.get(D.JOB_TYPE),
                        r.get(D.QUEUE_NAME),
                        r.get(D.EXCHANGE),
                        r.get(D.ROUTING_KEY),
                        r.get(D.ATTEMPTS),
                        Objects.requireNonNull(r.get(D.FAILURE_REASON)),
                        Objects.requireNonNull(r.get(D.FAILED_AT)).toInstant(),
                        r.get(D.CREATED_AT).toInstant()));
        if (rows.size() <= limit) {
            return new FailedPage(rows, null);
        }
        List<FailedDelivery> page = rows.subList(0, limit);
        return new FailedPage(page, page.get(limit - 1).cursor());
    }

    /** How many failed deliveries match {@code filter}. */
    public int countFailed(FailedFilter filter) {
        return dsl().fetchCount(
                        DSL.selectOne().from(D).join(E).on(E.ID.eq(D.EVENT_ID)).where(matching(filter, null)));
    }

    /** One delivery (in any status) with its event; the payload only with {@code withPayload}. */
    public Optional<DeliveryDetails> show(UUID deliveryId, boolean withPayload) {
        Field<String> payload = withPayload
                ? E.PAYLOAD.cast(SQLDataType.CLOB).as("payload_text")
                : DSL.inline((String) null).as("payload_text");
        Record r = dsl().select(
                        D.asterisk(),
                        E.EVENT_TYPE,
                        E.CREATED_AT.as("event_created_at"),
                        E.ROUTED_AT,
                        E.ORDERING_KEY,
                        payload)
                .from(D)
                .join(E)
                .on(E.ID.eq(D.EVENT_ID))
                .where(D.ID.eq(deliveryId))
                .fetchOne();
        if (r == null) {
            return Optional.empty();
        }
        return Optional.of(new DeliveryDetails(
                r.get(D.ID),
                r.get(D.STATUS).getLiteral(),
                r.get(D.KIND).getLiteral(),
                r.get(D.JOB_TYPE),
                r.get(D.QUEUE_NAME),
                r.get(D.EXCHANGE),
                r.get(D.ROUTING_KEY),
                Arrays.asList(r.get(D.RETRY_DELAYS_SECONDS)),
                r.get(D.DELIVERY_TIMEOUT_SECONDS),
                r.get(D.ATTEMPTS),
                r.get(D.DISPATCH_ID),
                r.get(D.AVAILABLE_AT).toInstant(),
                instant(r.get(D.DISPATCHED_AT)),
                instant(r.get(D.DELIVERY_TIMEOUT_AT)),
                instant(r.get(D.COMPLETED_AT)),
                instant(r.get(D.FAILED_AT)),
                r.get(D.FAILURE_REASON),
                r.get(D.CREATED_AT).toInstant(),
                r.get(D.UPDATED_AT).toInstant(),
                r.get(D.EVENT_ID),
                r.get(E.EVENT_TYPE),
                r.get("event_created_at", OffsetDateTime.class).toInstant(),
                instant(r.get(E.ROUTED_AT)),
                r.get(E.ORDERING_KEY),
                r.get("payload_text", String.class)));
    }

    // ---------------------------------------------------------------- requeue and removal

    /**
     * T9 for every failed delivery matching {@code filter} that failed before this call: back to
     * pending, attempts 0, available now. With {@code dryRun}, counts them and changes nothing.
     * Deliveries named by id that are not failed, and any that changed between the read and the
     * guarded update of their batch, are left alone and reported as skipped.
     */
    public ChangeResult requeue(FailedFilter filter, boolean dryRun) {
        return change(
                filter,
                dryRun,
                ids -> {
                    Set<UUID> done = inTransaction(ctx -> wakingRelays(ctx, transitions.requeue(ctx, ids)));
                    return new Changed(done, 0);
                },
                "requeued");
    }

    /**
     * Deletes every failed delivery matching {@code filter} that failed before this call, and the events
     * left with no delivery. With {@code dryRun}, counts both and changes nothing.
     */
    public ChangeResult remove(FailedFilter filter, boolean dryRun) {
        return change(
                filter,
                dryRun,
                ids -> {
                    OperatorTransitions.Removed removed = inTransaction(ctx -> transitions.removeFailed(ctx, ids));
                    return new Changed(removed.deliveries(), removed.events());
                },
                "removed");
    }

    private record Changed(Set<UUID> deliveries, int events) {}

    // ---------------------------------------------------------------- blocked keys of ordered routes

    /** Up to {@code limit} blocked keys of ordered routes, the longest blocked first (docs/ordering.md). */
    public List<BlockedKey> blockedKeys(int limit) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("page size must be from 1 to " + MAX_PAGE + ", got " + limit);
        }
        return dsl().select(
                        D.JOB_TYPE,
                        D.QUEUE_NAME,
                        D.ORDERING_KEY,
                        D.ID,
                        D.EVENT_ID,
                        E.EVENT_TYPE,
                        D.FAILURE_REASON,
                        D.FAILED_AT)
                .from(D)
                .join(E)
                .on(E.ID.eq(D.EVENT_ID))
                .where(OperatorTransitions.BLOCKING_HEAD)
                .orderBy(D.FAILED_AT, D.ID)
                .limit(limit)
                .fetch(r -> new BlockedKey(
                        r.get(D.JOB_TYPE),
                        r.get(D.QUEUE_NAME),
                        Objects.requireNonNull(r.get(D.ORDERING_KEY)),
                        r.get(D.ID),
                        r.get(D.EVENT_ID),
                        r.get(E.EVENT_TYPE),
                        Objects.requireNonNull(r.get(D.FAILURE_REASON)),
                        Objects.requireNonNull(r.get(D.FAILED_AT)).toInstant()));
    }

    /**
     * T9 for blocked heads: each runs again in its place, and its key resumes in order. {@code heads}
     * names them by delivery id; empty means every blocked head. With {@code dryRun}, counts them.
     * A delivery named that is not (or no longer) a blocked head is left alone and reported.
     */
    public ChangeResult requeueBlocked(Collection<UUID> heads, boolean dryRun) {
        return changeBlocked(
                heads,
                dryRun,
                ids -> inTransaction(ctx -> wakingRelays(ctx, transitions.requeue(ctx, ids))),
                "requeued");
    }

    /**
     * T9s for blocked heads: each stays failed, and its key goes on with its next event.
     * {@code heads} as for {@link #requeueBlocked}.
     */
    public ChangeResult skipBlocked(Collection<UUID> heads, boolean dryRun) {
        return changeBlocked(
                heads, dryRun, ids -> inTransaction(ctx -> wakingRelays(ctx, transitions.skip(ctx, ids))), "skipped");
    }

    private ChangeResult changeBlocked(
            Collection<UUID> heads, boolean dryRun, Function<List<UUID>, Set<UUID>> batch, String verb) {
        Condition which = heads.isEmpty()
                ? OperatorTransitions.BLOCKING_HEAD
                : OperatorTransitions.BLOCKING_HEAD.and(D.ID.eq(DSL.any(heads.toArray(UUID[]::new))));
        Set<UUID> changed = new LinkedHashSet<>();
        Set<UUID> seen = new LinkedHashSet<>();
        Condition after = DSL.noCondition();
        while (true) {
            var page = dsl().select(D.ID, D.FAILED_AT)
                    .from(D)
                    .where(which)
                    .and(after)
                    .orderBy(D.FAILED_AT, D.ID)
                    .limit(batchSize)
                    .fetch();
            if (page.isEmpty()) {
                break;
            }
            List<UUID> ids = page.stream().map(r -> r.get(D.ID)).toList();
            seen.addAll(ids);
            if (dryRun) {
                changed.addAll(ids);
            } else {
                Set<UUID> done = batch.apply(ids);
                changed.addAll(done);
                log.info("{} {} blocked head(s) of ordered routes of {} in a batch", verb, done.size(), ids.size());
            }
            if (page.size() < batchSize) {
                break;
            }
            var last = page.get(page.size() - 1);
            after = DSL.row(D.FAILED_AT, D.ID).gt(last.get(D.FAILED_AT), last.get(D.ID));
        }
        Set<UUID> left = new LinkedHashSet<>();
        seen.stream().filter(id -> !changed.contains(id)).forEach(left::add);
        heads.stream().filter(id -> !changed.contains(id)).forEach(left::add);
        return new ChangeResult(dryRun, changed.size(), 0, states(left));
    }

    private ChangeResult change(FailedFilter filter, boolean dryRun, Function<List<UUID>, Changed> batch, String verb) {
        Instant startedAt = clock.instant();
        Set<UUID> changed = new LinkedHashSet<>();
        Set<UUID> raced = new LinkedHashSet<>();
        List<UUID> matched = new ArrayList<>();
        int events = 0;
        FailedPage.Cursor after = null;
        while (true) {
            var page = dsl().select(D.ID, D.FAILED_AT)
                    .from(D)
                    .join(E)
                    .on(E.ID.eq(D.EVENT_ID))
                    .where(matching(filter, startedAt))
                    .and(after(after))
                    .orderBy(D.FAILED_AT, D.ID)
                    .limit(batchSize)
                    .fetch();
            if (page.isEmpty()) {
                break;
            }
            List<UUID> ids = page.stream().map(r -> r.get(D.ID)).toList();
            if (dryRun) {
                matched.addAll(ids);
            } else {
                Changed done = batch.apply(ids);
                changed.addAll(done.deliveries());
                events += done.events();
                ids.stream().filter(id -> !done.deliveries().contains(id)).forEach(raced::add);
                log.info(
                        "{} {} failed delivery(ies) of {} in a batch",
                        verb,
                        done.deliveries().size(),
                        ids.size());
            }
            if (page.size() < batchSize) {
                break;
            }
            var last = page.get(page.size() - 1);
            after = new FailedPage.Cursor(
                    Objects.requireNonNull(last.get(D.FAILED_AT)).toInstant(), last.get(D.ID));
        }
        if (dryRun) {
            changed.addAll(matched);
            if (verb.equals("removed")) {
                events = dsl().transactionResult(c -> transitions.countEventsLeftByRemoval(c.dsl(), matched));
            }
        }
        Set<UUID> left = new LinkedHashSet<>(raced);
        filter.deliveryIds().stream().filter(id -> !changed.contains(id)).forEach(left::add);
        List<ChangeResult.Skipped> skipped = states(left);
        if (!dryRun && !skipped.isEmpty()) {
            log.info("{} delivery(ies) left alone: not failed (or no longer)", skipped.size());
        }
        return new ChangeResult(dryRun, changed.size(), events, skipped);
    }

    private List<ChangeResult.Skipped> states(Collection<UUID> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        Map<UUID, String> found = new HashMap<>();
        dsl().select(D.ID, D.STATUS)
                .from(D)
                .where(D.ID.eq(DSL.any(ids.toArray(UUID[]::new))))
                .forEach(r -> found.put(r.get(D.ID), r.get(D.STATUS).getLiteral()));
        return ids.stream()
                .map(id -> new ChangeResult.Skipped(id, found.getOrDefault(id, "absent")))
                .toList();
    }

    /** The filter's predicate over D joined with E; with {@code failedUpTo}, only failures up to that instant. */
    private static Condition matching(FailedFilter f, @Nullable Instant failedUpTo) {
        Condition c = D.STATUS.eq(FAILED);
        if (f.queue() != null) {
            c = c.and(D.QUEUE_NAME.eq(f.queue()));
        }
        if (f.exchange() != null) {
            c = c.and(D.EXCHANGE.eq(f.exchange()));
        }
        if (f.jobType() != null) {
            c = c.and(D.JOB_TYPE.eq(f.jobType()));
        }
        if (f.eventType() != null) {
            c = c.and(E.EVENT_TYPE.eq(f.eventType()));
        }
        if (f.reason() != null) {
            c = c.and(D.FAILURE_REASON.eq(f.reason()));
        }
        if (f.failedBefore() != null) {
            c = c.and(D.FAILED_AT.lt(utc(f.failedBefore())));
        }
        if (f.failedAfter() != null) {
            c = c.and(D.FAILED_AT.ge(utc(f.failedAfter())));
        }
        if (failedUpTo != null) {
            c = c.and(D.FAILED_AT.le(utc(failedUpTo)));
        }
        if (!f.deliveryIds().isEmpty()) {
            c = c.and(D.ID.eq(DSL.any(f.deliveryIds().toArray(UUID[]::new))));
        }
        if (!f.eventIds().isEmpty()) {
            c = c.and(D.EVENT_ID.eq(DSL.any(f.eventIds().toArray(UUID[]::new))));
        }
        return c;
    }

    private static Condition after(FailedPage.@Nullable Cursor after) {
        return after == null ? DSL.noCondition() : DSL.row(D.FAILED_AT, D.ID).gt(utc(after.failedAt()), after.id());
    }

    // ---------------------------------------------------------------- retention

    /**
     * T10: deletes what {@code retention} names, oldest first, a batch per transaction: completed
     * deliveries, then failed ones, then the routed events left with no delivery, then (when asked)
     * unrouted events, then the ordering keys left with nothing to order. With {@code dryRun}, counts each and changes nothing. Rows another session holds
     * locked are skipped and left for the next run.
     */
    public PurgeResult purge(Retention retention, boolean dryRun) {
        long started = System.nanoTime();
        OffsetDateTime now = now();
        OffsetDateTime completedBefore = retention.completed() == null ? null : now.minus(retention.completed());
        OffsetDateTime failedBefore = retention.failed() == null ? null : now.minus(retention.failed());
        OffsetDateTime unroutedBefore = retention.unrouted() == null ? null : now.minus(retention.unrouted());
        int size = retention.batchSize();
        if (dryRun) {
            DSLContext dsl = dsl();
            return dsl.transactionResult(c -> {
                DSLContext ctx = c.dsl();
                long completed = completedBefore == null ? 0 : transitions.countCompleted(ctx, completedBefore);
                long failed = failedBefore == null ? 0 : transitions.countFailed(ctx, failedBefore);
                long events = transitions.countFinishedEvents(ctx, completedBefore, failedBefore);
                long unrouted = unroutedBefore == null ? 0 : transitions.countUnrouted(ctx, unroutedBefore);
                long keys = transitions.countKeys(ctx);
                return new PurgeResult(
                        true,
                        completed,
                        failed,
                        events,
                        unrouted,
                        keys,
                        0,
                        Duration.ofNanos(System.nanoTime() - started));
            });
        }
        int[] batches = {0};
        long completed = completedBefore == null
                ? 0
                : batches(
                        size,
                        batches,
                        () -> inTransaction(ctx -> transitions.purgeCompleted(ctx, completedBefore, size)));
        long failed = failedBefore == null
                ? 0
                : batches(size, batches, () -> inTransaction(ctx -> transitions.purgeFailed(ctx, failedBefore, size)));
        long events = 0;
        UUID after = null;
        while (true) {
            UUID from = after;
            OperatorTransitions.Swept swept = inTransaction(ctx -> transitions.purgeFinishedEvents(ctx, from, size));
            events += swept.deleted();
            if (swept.deleted() > 0) {
                batches[0]++;
            }
            if (swept.deleted() < size) {
                break;
            }
            after = swept.last();
        }
        long unrouted = unroutedBefore == null
                ? 0
                : batches(
                        size,
                        batches,
                        () -> inTransaction(ctx -> transitions.purgeUnrouted(ctx, unroutedBefore, size)));
        long keys = 0;
        String afterKey = null;
        do {
            String from = afterKey;
            OperatorTransitions.KeysSwept swept = inTransaction(ctx -> transitions.purgeKeys(ctx, from, size));
            keys += swept.deleted();
            if (swept.deleted() > 0) {
                batches[0]++;
            }
            afterKey = swept.last();
        } while (afterKey != null);
        PurgeResult result = new PurgeResult(
                false,
                completed,
                failed,
                events,
                unrouted,
                keys,
                batches[0],
                Duration.ofNanos(System.nanoTime() - started));
        log.info(
                "purged {} completed and {} failed delivery(ies), {} finished and {} unrouted event(s), {} ordering key(s) in {} batch(es),"
                        + " {} ms",
                completed,
                failed,
                events,
                unrouted,
                keys,
                batches[0],
                result.took().toMillis());
        return result;
    }

    @FunctionalInterface
    private interface Batch {
        int run();
    }

    private static long batches(int size, int[] batches, Batch batch) {
        long total = 0;
        while (true) {
            int n = batch.run();
            total += n;
            if (n > 0) {
                batches[0]++;
            }
            if (n < size) {
                return total;
            }
        }
    }

    /**
     * {@link #purge} unless another session runs it for the same tables: holds a PostgreSQL advisory
     * lock (session level, on a connection of its own, keyed on the tables' names) while it runs, and
     * returns empty at once when another holds it. No row lock or transaction is held by the lock.
     */
    public Optional<PurgeResult> purgeExclusively(Retention retention) {
        try (Connection connection = dataSource.getConnection()) {
            if (!connection.getAutoCommit()) {
                connection.setAutoCommit(true);
            }
            DSLContext lock = DSL.using(connection, SQLDialect.POSTGRES);
            Boolean acquired = lock.select(
                            DSL.function("pg_try_advisory_lock", SQLDataType.BOOLEAN, DSL.val(retentionLockKey())))
                    .fetchSingle()
                    .value1();
            if (!Boolean.TRUE.equals(acquired)) {
                log.info("retention skipped: another session runs it for {}.{}", tables.schema(), tables.deliveries());
                return Optional.empty();
            }
            try {
                return Optional.of(purge(retention, false));
            } finally {
                lock.select(DSL.function("pg_advisory_unlock", SQLDataType.BOOLEAN, DSL.val(retentionLockKey())))
                        .fetch();
            }
        } catch (SQLException e) {
            throw new org.jooq.exception.DataAccessException("cannot take the retention lock", e);
        }
    }

    /** The advisory lock key of retention for these tables: the first 8 bytes of a SHA-256 of their names. */
    long retentionLockKey() {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256")
                    .digest(("outbox-retention " + tables.schema() + "." + tables.events() + " " + tables.schema() + "."
                                    + tables.deliveries())
                            .getBytes(StandardCharsets.UTF_8));
            return ByteBuffer.wrap(hash).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static OffsetDateTime utc(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    private static @Nullable Instant instant(@Nullable OffsetDateTime t) {
        return t == null ? null : t.toInstant();
    }
}
