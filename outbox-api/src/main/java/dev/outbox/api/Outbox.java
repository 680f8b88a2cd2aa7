package dev.outbox.api;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.api.internal.RecordingMeters;
import dev.outbox.api.internal.TraceContexts;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import dev.outbox.schema.tables.records.OutboxEventsRecord;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.jooq.DSLContext;
import org.jooq.InsertValuesStep9;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * Records integration events in the caller's transaction. Built once, shared by every thread.
 *
 * <p>{@link #record(DSLContext, Object)} joins the transaction of the {@code DSLContext} it is given:
 * it never begins, commits or rolls back. The event row and the business change commit together or
 * not at all; a failing write throws, so the caller's transaction rolls back with it. An id of your
 * own that is already recorded is refused with {@link DuplicateEventException} without aborting the
 * transaction, and {@link #recordIfAbsent(DSLContext, Object)} records unless the id exists. On a connection
 * in auto-commit mode it refuses and writes nothing. Recording reads no route and touches no broker:
 * a relay turns events into deliveries after commit. When the transaction commits, PostgreSQL
 * delivers a {@code NOTIFY} on {@link Builder#notifyChannel(String)} so that a listening relay wakes up
 * (at most one per {@link Builder#notifyInterval(Duration)}, 5 ms by default: the relay's pass after a
 * NOTIFY also takes the events whose recording sent none, and a looping relay looks again 10, 20,
 * 40 ... ms after a pass that found work for those whose transaction committed after that pass).
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder().build();   // default tables, Jackson, UUIDv7, system clock
 *
 * dsl.transaction(tx -> {
 *     tx.dsl().insertInto(ORDERS).set(ORDERS.ID, orderId).set(ORDERS.TOTAL, total).execute();
 *     outbox.record(tx.dsl(), new OrderPlaced(orderId, total));   // same transaction
 * });
 * }</pre>
 */
public final class Outbox {

    /** The default NOTIFY channel, the one a relay listens on unless told otherwise. */
    public static final String DEFAULT_NOTIFY_CHANNEL = "outbox_events";

    /**
     * The default {@link Builder#notifyInterval(Duration)}: at most one NOTIFY per 5 ms, the relay's default
     * wake-up linger.
     */
    public static final Duration DEFAULT_NOTIFY_INTERVAL = Duration.ofMillis(5);

    /** Events per INSERT statement in {@link #recordAll}; 8 parameters each keeps well below PostgreSQL's 65,535. */
    static final int ROWS_PER_STATEMENT = 2_000;

    /** {@link #notifyNow()}: no NOTIFY this time. */
    private static final long NO_NOTIFY = Long.MIN_VALUE;
    /** {@link #notifyNow()}: a NOTIFY, as every time (no interval). */
    private static final long EVERY_TIME = Long.MAX_VALUE;
    /** {@code lastNotify} before the first NOTIFY: far enough in the past, and no overflow when subtracted from a time. */
    private static final long NEVER = Long.MIN_VALUE / 4;

    private final OutboxTables tables;
    private final EventSerializer serializer;
    private final EventTypes eventTypes;
    private final Clock clock;
    private final IdGenerator ids;
    private final @Nullable String notifyChannel;
    /** {@link Builder#notifyInterval}, in nanoseconds; 0: every recording transaction notifies. */
    private final long notifyIntervalNanos;
    /** When this outbox last sent a NOTIFY (its clock, nanoseconds since the epoch), for {@link Builder#notifyInterval}. */
    private final AtomicLong lastNotify;
    /** {@code record}'s statement for one event, rendered at its first use: with the NOTIFY, and without it. */
    private volatile @Nullable OneEventInsert oneEvent;

    private volatile @Nullable OneEventInsert oneEventQuiet;
    private final RecordingMeters meters;
    private final TraceContext trace;

    private Outbox(Builder b) {
        this.tables = b.tables;
        this.serializer = b.serializer;
        this.eventTypes = b.eventTypes;
        this.clock = b.clock;
        this.ids = b.ids;
        this.notifyChannel = b.notifications ? b.notifyChannel : null;
        this.notifyIntervalNanos = b.notifyInterval.toNanos();
        this.lastNotify = new AtomicLong(NEVER);
        this.meters = RecordingMeters.of(b.meterRegistry);
        this.trace = b.traceContext != null ? b.traceContext : TraceContexts.detect();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Records one event in the transaction of {@code tx} and returns its id. {@code event} is the event
     * object, or a {@link NewEvent} that carries an id, type, ordering key or trace headers with it.
     * An event without a traceparent of its own takes the caller's, from
     * {@link Builder#traceContext(TraceContext)} (by default the current OpenTelemetry span's, with its
     * tracestate, when the OpenTelemetry API is on the class path and that span is valid); an explicit
     * {@link NewEvent#withTraceparent(String)} wins.
     *
     * <p>An id of your own that is already recorded throws {@link DuplicateEventException} and writes
     * nothing. The duplicate is detected with {@code ON CONFLICT (id) DO NOTHING}, not by a failed
     * INSERT, so <b>the transaction is not aborted</b>: you may roll back, or catch the exception and
     * go on. Any other write the database refuses ({@code DataAccessException}) does leave a PostgreSQL
     * transaction aborted: every later statement fails until it is rolled back. Use
     * {@link #recordIfAbsent} when an existing id is an expected answer rather than an error.
     *
     * @throws IllegalStateException when {@code tx} is not inside a transaction (auto-commit)
     * @throws DuplicateEventException when the event's id is already recorded; the transaction stays usable
     * @throws EventEncodingException when the event holds a value that cannot be stored
     * @throws OutboxException when the event's class has no stable type name
     * @throws org.jooq.exception.DataAccessException when the database refuses the write (the transaction is then aborted)
     */
    public UUID record(DSLContext tx, Object event) {
        return recordAll(tx, List.of(event)).get(0);
    }

    /**
     * Records one event unless its id is already recorded, and returns whether it wrote it. For an
     * event that carries an id of your own ({@link NewEvent#withId(UUID)}), e.g. one derived from a
     * request's idempotency key: a retry after a commit whose result was not seen finds the id and
     * returns {@code false}, writing nothing and sending no NOTIFY. The transaction is not aborted, so
     * the business change made in it still commits. A concurrent transaction that has written the same
     * id and not committed yet makes this call wait for it (PostgreSQL's unique check): {@code false}
     * if it commits, {@code true} if it rolls back.
     *
     * <pre>{@code
     * UUID eventId = UUID.nameUUIDFromBytes(("order-placed:" + requestKey).getBytes(UTF_8));
     * dsl.transaction(tx -> {
     *     upsertOrder(tx.dsl(), order);
     *     boolean recorded = outbox.recordIfAbsent(tx.dsl(), NewEvent.of(new OrderPlaced(order)).withId(eventId));
     * });
     * }</pre>
     *
     * @throws IllegalStateException when {@code tx} is not inside a transaction (auto-commit)
     * @throws EventEncodingException when the event holds a value that cannot be stored
     * @throws org.jooq.exception.DataAccessException when the database refuses the write (the transaction is then aborted)
     */
    public boolean recordIfAbsent(DSLContext tx, Object event) {
        return !recordAllIfAbsent(tx, List.of(event)).isEmpty();
    }

    /**
     * Records many events in the transaction of {@code tx}, in multi-row statements (up to 2,000 rows
     * each, so 1,000 events are one INSERT), and returns their ids in order. Every event is checked
     * and encoded before anything is written; one NOTIFY is sent for the whole call.
     *
     * <p>All or none: when ids of your own are already recorded, it throws one
     * {@link DuplicateEventException} naming all of them and leaves none of the batch written (the
     * rows it had inserted are deleted again), in a transaction that is not aborted. The same id given
     * twice in one call throws before anything is written. {@link #recordAllIfAbsent} skips the
     * recorded ones instead.
     *
     * @throws IllegalStateException when {@code tx} is not inside a transaction (auto-commit)
     * @throws DuplicateEventException when ids are already recorded or given twice; nothing is written
     * @throws EventEncodingException when an event holds a value that cannot be stored; nothing is written
     * @throws org.jooq.exception.DataAccessException when the database refuses the write (the transaction is then aborted)
     */
    public List<UUID> recordAll(DSLContext tx, List<?> events) {
        return write(tx, events, true);
    }

    /**
     * Records the events whose ids are not recorded yet and returns the ids it wrote, in order; the
     * others are skipped, and the transaction is not aborted. One NOTIFY when anything was written.
     * The same id given twice in one call throws {@link DuplicateEventException} before anything is
     * written (that is a mistake in the batch, not a retry).
     *
     * @throws IllegalStateException when {@code tx} is not inside a transaction (auto-commit)
     * @throws DuplicateEventException when one id is given twice in {@code events}; nothing is written
     * @throws EventEncodingException when an event holds a value that cannot be stored; nothing is written
     * @throws org.jooq.exception.DataAccessException when the database refuses the write (the transaction is then aborted)
     */
    public List<UUID> recordAllIfAbsent(DSLContext tx, List<?> events) {
        return write(tx, events, false);
    }

    /** Writes the events, skipping recorded ids; with {@code allOrNone} a recorded id undoes the call and throws. */
    private List<UUID> write(DSLContext tx, List<?> events, boolean allOrNone) {
        List<OutboxEventsRecord> rows = encodeAll(tx, events);
        if (rows.isEmpty()) {
            return List.of();
        }
        if (rows.size() == 1) {
            return writeOne(tx, rows.get(0), allOrNone);
        }
        DSLContext ctx = OutboxDsl.mapped(tx, tables);
        KeyPositions.assign(ctx, rows, ROWS_PER_STATEMENT);
        Set<UUID> written = insert(ctx, rows);
        if (allOrNone && written.size() < rows.size()) {
            List<UUID> duplicates = ids(rows, id -> !written.contains(id));
            if (!written.isEmpty()) {
                ctx.deleteFrom(OUTBOX_EVENTS)
                        .where(OUTBOX_EVENTS.ID.in(written))
                        .execute();
            }
            throw new DuplicateEventException(duplicates);
        }
        if (!written.isEmpty()) {
            if (notifyNow() != NO_NOTIFY) {
                notifyRelays(ctx);
            }
            meters.recorded(types(rows, written));
        }
        return ids(rows, written::contains);
    }

    /** One event: its INSERT and NOTIFY in one statement, rendered once. */
    private List<UUID> writeOne(DSLContext tx, OutboxEventsRecord row, boolean allOrNone) {
        if (row.getOrderingKey() != null) {
            KeyPositions.assign(OutboxDsl.mapped(tx, tables), List.of(row), 1);
        }
        long slot = notifyNow();
        OneEventInsert statement = statement(slot != NO_NOTIFY);
        boolean written;
        try {
            written = statement.insert(tx, row);
        } catch (RuntimeException e) {
            giveBack(slot);
            throw e;
        }
        if (written) {
            meters.recorded(List.of(row.getEventType()));
            return List.of(row.getId());
        }
        giveBack(slot);
        if (allOrNone) {
            throw new DuplicateEventException(List.of(row.getId()));
        }
        return List.of();
    }

    /** Nothing was written, so no NOTIFY was sent: the interval's slot {@code slot} goes back, and the next recording sends it. */
    private void giveBack(long slot) {
        if (slot != NO_NOTIFY && slot != EVERY_TIME) {
            lastNotify.compareAndSet(slot, slot - notifyIntervalNanos);
        }
    }

    /** {@code record}'s statement for one event, with its NOTIFY or without, rendered at its first use. */
    private OneEventInsert statement(boolean notify) {
        OneEventInsert statement = notify ? oneEvent : oneEventQuiet;
        if (statement == null) {
            // rendered with settings of its own: the caller's may inline values or name parameters
            statement = OneEventInsert.render(
                    DSL.using(SQLDialect.POSTGRES, OutboxRenderMapping.apply(new Settings(), tables)),
                    notify ? notifyChannel : null);
            if (notify) {
                oneEvent = statement;
            } else {
                oneEventQuiet = statement;
            }
        }
        return statement;
    }

    /**
     * Whether this recording sends a NOTIFY: {@link #NO_NOTIFY} when notifications are off or one was
     * sent less than {@link Builder#notifyInterval} ago, {@link #EVERY_TIME} without an interval, else
     * the time it took the interval's slot at (to give it back when nothing is written).
     */
    private long notifyNow() {
        if (notifyChannel == null) {
            return NO_NOTIFY;
        }
        if (notifyIntervalNanos == 0) {
            return EVERY_TIME;
        }
        Instant at = clock.instant();
        long now = at.getEpochSecond() * 1_000_000_000L + at.getNano();
        long last = lastNotify.get();
        boolean within = now >= last && now - last < notifyIntervalNanos; // a clock set back ends the interval
        if (within || !lastNotify.compareAndSet(last, now)) {
            return NO_NOTIFY; // another recording took the slot: its NOTIFY wakes the relays for this one too
        }
        return now;
    }

    private List<OutboxEventsRecord> encodeAll(DSLContext tx, List<?> events) {
        Objects.requireNonNull(tx, "tx");
        Objects.requireNonNull(events, "events");
        if (events.isEmpty()) {
            return List.of();
        }
        requireTransaction(tx);
        OffsetDateTime now = OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC);
        List<OutboxEventsRecord> rows = new ArrayList<>(events.size());
        Set<UUID> seen = new HashSet<>();
        List<UUID> twice = new ArrayList<>();
        TraceContext.Headers current = trace.current(); // the caller's span, for events that name no trace of their own
        for (Object event : events) {
            OutboxEventsRecord r = encode(event, now, current);
            if (!seen.add(r.getId())) {
                twice.add(r.getId());
            }
            rows.add(r);
        }
        if (!twice.isEmpty()) {
            throw new DuplicateEventException(twice);
        }
        return rows;
    }

    /** Inserts the rows, skipping ids already recorded, and returns the ids it wrote. */
    private static Set<UUID> insert(DSLContext ctx, List<OutboxEventsRecord> rows) {
        Set<UUID> written = new HashSet<>();
        for (int from = 0; from < rows.size(); from += ROWS_PER_STATEMENT) {
            InsertValuesStep9<
                            OutboxEventsRecord,
                            UUID,
                            String,
                            JSONB,
                            String,
                            Long,
                            String,
                            String,
                            OffsetDateTime,
                            OffsetDateTime>
                    insert = ctx.insertInto(
                            OUTBOX_EVENTS,
                            OUTBOX_EVENTS.ID,
                            OUTBOX_EVENTS.EVENT_TYPE,
                            OUTBOX_EVENTS.PAYLOAD,
                            OUTBOX_EVENTS.ORDERING_KEY,
                            OUTBOX_EVENTS.ORDERING_POSITION,
                            OUTBOX_EVENTS.TRACEPARENT,
                            OUTBOX_EVENTS.TRACESTATE,
                            OUTBOX_EVENTS.CREATED_AT,
                            OUTBOX_EVENTS.ROUTED_AT);
            for (OutboxEventsRecord r : rows.subList(from, Math.min(rows.size(), from + ROWS_PER_STATEMENT))) {
                insert = insert.values(
                        r.getId(),
                        r.getEventType(),
                        r.getPayload(),
                        r.getOrderingKey(),
                        r.getOrderingPosition(),
                        r.getTraceparent(),
                        r.getTracestate(),
                        r.getCreatedAt(),
                        null);
            }
            written.addAll(insert.onConflict(OUTBOX_EVENTS.ID)
                    .doNothing()
                    .returningResult(OUTBOX_EVENTS.ID)
                    .fetch(OUTBOX_EVENTS.ID));
        }
        return written;
    }

    private void notifyRelays(DSLContext ctx) {
        if (notifyChannel != null) {
            ctx.select(DSL.function("pg_notify", Object.class, DSL.val(notifyChannel), DSL.val("")))
                    .fetch();
        }
    }

    /** The event types of the rows written, one per event. */
    private static List<String> types(List<OutboxEventsRecord> rows, Set<UUID> written) {
        List<String> types = new ArrayList<>(written.size());
        for (OutboxEventsRecord r : rows) {
            if (written.contains(r.getId())) {
                types.add(r.getEventType());
            }
        }
        return types;
    }

    /** The ids of {@code rows} that {@code keep} accepts, in order. */
    private static List<UUID> ids(List<OutboxEventsRecord> rows, Predicate<UUID> keep) {
        List<UUID> result = new ArrayList<>(rows.size());
        for (OutboxEventsRecord r : rows) {
            if (keep.test(r.getId())) {
                result.add(r.getId());
            }
        }
        return List.copyOf(result);
    }

    /** The tables this outbox writes to. */
    public OutboxTables tables() {
        return tables;
    }

    /** The serializer of this outbox. */
    public EventSerializer serializer() {
        return serializer;
    }

    /** The event type registry of this outbox. */
    public EventTypes eventTypes() {
        return eventTypes;
    }

    /** The NOTIFY channel, when notifications are on. */
    public java.util.Optional<String> notifyChannel() {
        return java.util.Optional.ofNullable(notifyChannel);
    }

    private OutboxEventsRecord encode(Object event, OffsetDateTime now, TraceContext.@Nullable Headers current) {
        Objects.requireNonNull(event, "event");
        NewEvent e = event instanceof NewEvent n ? n : NewEvent.of(event);
        String type = e.eventType() != null
                ? e.eventType()
                : eventTypes.nameOf(e.payload().getClass());
        String json = serializer.serialize(type, e.payload());
        OutboxEventsRecord r = new OutboxEventsRecord();
        r.setId(e.id() != null ? e.id() : ids.next());
        r.setEventType(type);
        r.setPayload(JSONB.valueOf(json));
        r.setOrderingKey(e.orderingKey());
        if (e.traceparent() == null && current != null) {
            r.setTraceparent(current.traceparent());
            r.setTracestate(e.tracestate() != null ? e.tracestate() : current.tracestate());
        } else {
            r.setTraceparent(e.traceparent());
            r.setTracestate(e.tracestate());
        }
        r.setCreatedAt(now);
        return r;
    }

    private static void requireTransaction(DSLContext tx) {
        boolean autoCommit = tx.connectionResult(c -> c.getAutoCommit());
        if (autoCommit) {
            throw new IllegalStateException(
                    "Outbox.record needs the caller's open transaction, but the connection is in auto-commit"
                            + " mode: call it inside dsl.transaction(tx -> outbox.record(tx.dsl(), event)) or your framework's transaction");
        }
    }

    /** Settings of an {@link Outbox}; {@link #build()} checks them. */
    public static final class Builder {
        private OutboxTables tables = OutboxTables.defaults();
        private EventSerializer serializer = EventSerializer.jackson();
        private EventTypes eventTypes = EventTypes.annotated();
        private Clock clock = Clock.systemUTC();
        private IdGenerator ids = IdGenerator.uuidV7();
        private String notifyChannel = DEFAULT_NOTIFY_CHANNEL;
        private boolean notifications = true;
        private Duration notifyInterval = DEFAULT_NOTIFY_INTERVAL;
        /** An {@code io.micrometer.core.instrument.MeterRegistry}, or null; typed Object so that the builder loads without Micrometer. */
        private @Nullable Object meterRegistry;

        private @Nullable TraceContext traceContext;

        private Builder() {}

        /** The schema and table names chosen at migration time. Default {@link OutboxTables#defaults()}. */
        public Builder tables(OutboxTables tables) {
            this.tables = Objects.requireNonNull(tables, "tables");
            return this;
        }

        /** Default {@link EventSerializer#jackson()}. */
        public Builder serializer(EventSerializer serializer) {
            this.serializer = Objects.requireNonNull(serializer, "serializer");
            return this;
        }

        /** Default: {@link EventType} annotations only. */
        public Builder eventTypes(EventTypes eventTypes) {
            this.eventTypes = Objects.requireNonNull(eventTypes, "eventTypes");
            return this;
        }

        /** The clock of {@code created_at}. Default the system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Ids of new events. Default {@link IdGenerator#uuidV7()}. */
        public Builder idGenerator(IdGenerator ids) {
            this.ids = Objects.requireNonNull(ids, "idGenerator");
            return this;
        }

        /** The channel of the NOTIFY sent with each recording; {@value Outbox#DEFAULT_NOTIFY_CHANNEL} by default. */
        public Builder notifyChannel(String channel) {
            if (channel == null || !NotifyChannels.isValid(channel)) {
                throw new IllegalArgumentException(
                        "notifyChannel must be " + NotifyChannels.RULE + ", got '" + LogText.of(channel) + "'");
            }
            this.notifyChannel = channel;
            return this;
        }

        /**
         * Whether each recording sends a NOTIFY on {@link #notifyChannel(String)} to wake the relays.
         * With false, relays find new events by polling (and the insert costs less). Default true; the
         * relay's {@code OutboxRelay.Builder.notifications(boolean)} is the other end.
         */
        public Builder notifications(boolean notifications) {
            this.notifications = notifications;
            return this;
        }

        /**
         * The shortest time between two NOTIFYs of this outbox: a recording less than this after the
         * last one that notified sends none. Default {@link Outbox#DEFAULT_NOTIFY_INTERVAL} (5 ms);
         * {@link Duration#ZERO}: every recording transaction notifies. From 0 to 1 s; measured with the
         * {@linkplain #clock(Clock) clock}.
         *
         * <p>PostgreSQL serialises the commits of transactions that NOTIFY (they do not share WAL
         * flushes), which caps producers that commit one event per transaction well below the rate
         * of plain inserts. With an interval most of their commits carry
         * no NOTIFY. Nothing is missed and no event waits longer than the relay's poll sleep: a relay
         * woken by the last NOTIFY, after its {@code wakeupLinger} (default 5 ms; keep the interval
         * at most that), finds the events committed meanwhile; one committed later is found by the
         * next NOTIFY or, when none follows (the end of a burst, or the notifying transaction rolled
         * back), by the looks a looping relay takes 10, 20, 40 ... ms after its last pass that found
         * work, up to its poll sleep. Choose {@link Duration#ZERO} where every event must wake a relay
         * by itself, at the price of those serialised commits.
         */
        public Builder notifyInterval(Duration interval) {
            Objects.requireNonNull(interval, "notifyInterval");
            if (interval.isNegative() || interval.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException("notifyInterval must be from 0 to 1 s, got " + interval);
            }
            this.notifyInterval = interval;
            return this;
        }

        /**
         * Counts recorded events in {@code registry}: {@code outbox.events.recorded}, tagged by event type,
         * once the INSERT succeeded (recording cannot see the commit: a transaction rolled back later
         * was counted). Micrometer is an optional dependency: without this setting none is needed.
         */
        public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "meterRegistry");
            return this;
        }

        /**
         * Where an event that names no trace of its own takes its {@code traceparent} and
         * {@code tracestate} from. Default: the current OpenTelemetry span when the OpenTelemetry API
         * is on the class path, else none. {@link TraceContext#NONE} records no trace context.
         */
        public Builder traceContext(TraceContext traceContext) {
            this.traceContext = Objects.requireNonNull(traceContext, "traceContext");
            return this;
        }

        public Outbox build() {
            return new Outbox(this);
        }
    }
}
