package dev.outbox.test;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.api.EventSerializer;
import dev.outbox.api.EventTypes;
import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.internal.Claimed;
import dev.outbox.delivery.internal.DurationLimits;
import dev.outbox.delivery.internal.RelayTransitions;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.PassResult;
import dev.outbox.relay.Routes;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxEventsRecord;
import dev.outbox.worker.JobHandler;
import dev.outbox.worker.JobRun;
import dev.outbox.worker.JobRunner;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The outbox in an application's own tests, against the application's database with the outbox
 * migrations applied: what {@code Outbox.record} wrote, the relay's routing step and the job handlers
 * run synchronously in the test's thread, and the deliveries they leave.
 *
 * <pre>{@code
 * OutboxTestKit kit = OutboxTestKit.builder()
 *         .dataSource(dataSource)
 *         .routes(routes)                                   // the application's Routes
 *         .handler("send-confirmation", OrderPlaced.class, sendConfirmation)   // its own handler objects
 *         .build();
 *
 * placeOrder(42);
 * OrderPlaced placed = kit.requireRecorded(OrderPlaced.class, o -> o.orderId() == 42).event();
 *
 * List<JobRun> runs = kit.drain();                          // route, then run what is ready, until nothing is
 * assertThat(kit.deliveries("send-confirmation")).extracting(Delivery::status).containsOnly(Delivery.Status.COMPLETED);
 * }</pre>
 *
 * <p>Nothing here is a stand-in: {@link #route()} is the relay's T1 ({@code RelayTransitions.route},
 * in batches, one transaction each), {@link #runJobs()} claims ready job deliveries of the registered
 * job types with the relay's T2 and runs each through {@link JobRunner}, the worker's own rules and
 * transitions (T5 completed, T6 retry with the delivery's schedule or {@code retries_exhausted}, T7
 * {@code job_failed}, T8 {@code worker_died}), so the rows end as production would leave them.
 * Deliveries of publish routes and of job types without a handler here stay pending, untouched.
 * A retry is ready only after its delay by the kit's {@link Builder#clock(Clock) clock}: pass a clock
 * the test moves forward to run it.
 *
 * <p>The assertions throw {@link AssertionError} (any test framework reports it) naming what was
 * expected and what the tables hold; they never print payloads beyond the event types and counts.
 * With a broker, {@link #awaitDrained(OutboxRelay, Duration)} drives the application's real relay
 * while its real worker runs, until nothing is left to do.
 */
public final class OutboxTestKit {

    /** Rounds of {@link #drain()} before it gives up: a handler that records an event for every event it handles never drains. */
    public static final int MAX_DRAIN_ROUNDS = 100;

    private static final int BATCH = 500;

    private final DSLContext dsl;
    private final OutboxTables tables;
    private final EventSerializer serializer;
    private final EventTypes eventTypes;
    private final @Nullable RelayTransitions transitions;
    private final @Nullable JobRunner runner;
    private final List<JobRun> runs = Collections.synchronizedList(new ArrayList<>());

    private OutboxTestKit(Builder b, DSLContext dsl) {
        this.dsl = dsl;
        this.tables = b.tables;
        this.serializer = b.serializer;
        this.eventTypes = b.eventTypes;
        this.transitions = b.routes == null ? null : new RelayTransitions(b.tables, b.routes.toRouteTable(), b.clock);
        this.runner = b.hasHandlers ? b.runner.build() : null;
    }

    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------ what was recorded

    /** The committed events of {@code eventType}, oldest first, read as {@code type}. */
    public <T> List<RecordedEvent<T>> recorded(String eventType, Class<T> type) {
        return recorded(dsl, eventType, type);
    }

    /** The committed events of {@code type}'s event type (its {@code @EventType}, or the kit's {@link Builder#eventTypes}). */
    public <T> List<RecordedEvent<T>> recorded(Class<T> type) {
        return recorded(dsl, eventTypes.nameOf(type), type);
    }

    /**
     * The events of {@code eventType} as {@code tx} sees them (inside the test's open transaction,
     * before its commit, they are visible to it alone), oldest first, read as {@code type}.
     */
    public <T> List<RecordedEvent<T>> recorded(DSLContext tx, String eventType, Class<T> type) {
        Objects.requireNonNull(tx, "tx");
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(type, "type");
        return OutboxDsl.mapped(tx, tables)
                .selectFrom(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.EVENT_TYPE.eq(eventType))
                .orderBy(OUTBOX_EVENTS.ID)
                .fetch()
                .map(r -> read(r, type));
    }

    /**
     * Requires exactly one committed event of {@code type}'s event type that matches {@code matching},
     * and returns it.
     *
     * @throws AssertionError when none matches, or more than one (the one to return would be ambiguous:
     *     narrow the predicate, or use {@link #recorded(Class)})
     */
    public <T> RecordedEvent<T> requireRecorded(Class<T> type, Predicate<? super T> matching) {
        return requireRecorded(dsl, eventTypes.nameOf(type), type, matching);
    }

    /** {@link #requireRecorded(Class, Predicate)} for an event type given by name. */
    public <T> RecordedEvent<T> requireRecorded(String eventType, Class<T> type, Predicate<? super T> matching) {
        return requireRecorded(dsl, eventType, type, matching);
    }

    /** {@link #requireRecorded(Class, Predicate)} as {@code tx} sees the tables: inside the test's open transaction. */
    public <T> RecordedEvent<T> requireRecorded(DSLContext tx, Class<T> type, Predicate<? super T> matching) {
        return requireRecorded(tx, eventTypes.nameOf(type), type, matching);
    }

    /** {@link #requireRecorded(String, Class, Predicate)} as {@code tx} sees the tables: inside the test's open transaction. */
    public <T> RecordedEvent<T> requireRecorded(
            DSLContext tx, String eventType, Class<T> type, Predicate<? super T> matching) {
        Objects.requireNonNull(matching, "matching");
        List<RecordedEvent<T>> all = recorded(tx, eventType, type);
        List<RecordedEvent<T>> matched =
                all.stream().filter(e -> matching.test(e.event())).toList();
        if (matched.size() == 1) {
            return matched.get(0);
        }
        throw new AssertionError("expected one recorded event of type " + eventType + " matching the predicate, found "
                + matched.size()
                + (matched.isEmpty()
                        ? ""
                        : " (ids "
                                + matched.stream().map(e -> e.id().toString()).collect(Collectors.joining(", "))
                                + "; narrow the predicate or use recorded(...))")
                + "; " + all.size() + " of that type recorded; " + recordedTypes(tx));
    }

    /**
     * Requires that no event of {@code eventType} is committed.
     *
     * @throws AssertionError naming how many there are
     */
    public void requireNotRecorded(String eventType) {
        requireNotRecorded(dsl, eventType);
    }

    /** {@link #requireNotRecorded(String)} as {@code tx} sees the tables: inside the test's open transaction. */
    public void requireNotRecorded(DSLContext tx, String eventType) {
        Objects.requireNonNull(eventType, "eventType");
        int count = OutboxDsl.mapped(tx, tables).fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.EVENT_TYPE.eq(eventType));
        if (count != 0) {
            throw new AssertionError("expected no recorded event of type " + eventType + ", found " + count);
        }
    }

    /** {@link #requireNotRecorded(String)} for {@code type}'s event type. */
    public void requireNotRecorded(Class<?> type) {
        requireNotRecorded(dsl, eventTypes.nameOf(type));
    }

    private <T> RecordedEvent<T> read(OutboxEventsRecord r, Class<T> type) {
        T event = Objects.requireNonNull(serializer.deserialize(r.getPayload().data(), type), "event");
        return new RecordedEvent<>(
                r.getId(),
                r.getEventType(),
                event,
                r.getPayload().data(),
                r.getOrderingKey(),
                r.getCreatedAt(),
                r.getRoutedAt());
    }

    private String recordedTypes(DSLContext ctx) {
        var counts = OutboxDsl.mapped(ctx, tables)
                .select(OUTBOX_EVENTS.EVENT_TYPE, DSL.count())
                .from(OUTBOX_EVENTS)
                .groupBy(OUTBOX_EVENTS.EVENT_TYPE)
                .orderBy(OUTBOX_EVENTS.EVENT_TYPE)
                .fetch();
        if (counts.isEmpty()) {
            return "no event recorded at all";
        }
        return "recorded: "
                + counts.stream().map(r -> r.value1() + " x" + r.value2()).collect(Collectors.joining(", "));
    }

    // ------------------------------------------------------------------ relay and worker, synchronously

    /**
     * The relay's routing step (T1) for every unrouted event, with the kit's {@link Builder#routes}:
     * one delivery per route, {@code routed_at} set, in batches of one transaction each. Events whose
     * type has no route stay unrouted. Returns how many events it routed.
     */
    public int route() {
        RelayTransitions t = transitions;
        if (t == null) {
            throw new IllegalStateException(
                    "route: give the application's routes with OutboxTestKit.builder().routes(...)");
        }
        int routed = 0;
        UUID after = null;
        while (true) {
            UUID from = after;
            RelayTransitions.Routed r = dsl.transactionResult(c -> t.route(c.dsl(), BATCH, from));
            routed += r.events();
            if (r.seen() < BATCH) {
                return routed;
            }
            after = r.lastSeen();
        }
    }

    /**
     * Claims the ready pending deliveries of the registered job types (T2, committed) and runs each
     * one's handler in this thread with the worker's rules, until none is ready; returns the runs in
     * order. A retry scheduled meanwhile is ready only once the kit's clock reaches its time.
     *
     * @throws IllegalStateException when no handler is registered
     */
    public List<JobRun> runJobs() {
        JobRunner r = runner;
        if (r == null) {
            throw new IllegalStateException(
                    "runJobs: register the handlers to run with OutboxTestKit.builder().handler(...)");
        }
        RelayTransitions t = Objects.requireNonNull(transitions); // build() requires routes with handlers
        List<JobRun> result = new ArrayList<>();
        while (true) {
            List<Claimed> claimed = dsl.transactionResult(c -> t.claim(c.dsl(), BATCH, r.jobTypes()));
            if (claimed.isEmpty()) {
                return result;
            }
            for (Claimed c : claimed) {
                JobRun run = r.run(c.deliveryId(), c.dispatchId());
                runs.add(run);
                result.add(run);
            }
        }
    }

    /**
     * {@link #route()} then {@link #runJobs()}, again while either did something (a handler may record
     * new events), at most {@value #MAX_DRAIN_ROUNDS} rounds; returns every run.
     *
     * @throws IllegalStateException when the outbox is still busy after that many rounds
     */
    public List<JobRun> drain() {
        List<JobRun> result = new ArrayList<>();
        for (int round = 0; round < MAX_DRAIN_ROUNDS; round++) {
            int routed = route();
            List<JobRun> ran = runner == null ? List.of() : runJobs();
            result.addAll(ran);
            if (routed == 0 && ran.isEmpty()) {
                return result;
            }
        }
        throw new IllegalStateException("drain: still routing or running after " + MAX_DRAIN_ROUNDS
                + " rounds; do the handlers record an event for every event they handle?");
    }

    /** Every run of {@link #runJobs()} and {@link #drain()} since the kit was built, in order. */
    public List<JobRun> runs() {
        synchronized (runs) {
            return List.copyOf(runs);
        }
    }

    /** The runs of {@code jobType}, in order. */
    public List<JobRun> runs(String jobType) {
        return runs().stream().filter(r -> r.jobType().equals(jobType)).toList();
    }

    // ------------------------------------------------------------------ deliveries

    /** Every delivery, by event and then job type. */
    public List<Delivery> deliveries() {
        return deliveries(DSL.noCondition());
    }

    /** The deliveries of {@code jobType} (or of the publish route of that name), by event. */
    public List<Delivery> deliveries(String jobType) {
        return deliveries(OUTBOX_DELIVERIES.JOB_TYPE.eq(Objects.requireNonNull(jobType, "jobType")));
    }

    /** The deliveries of one event, by job type. */
    public List<Delivery> deliveriesOf(UUID eventId) {
        return deliveries(OUTBOX_DELIVERIES.EVENT_ID.eq(Objects.requireNonNull(eventId, "eventId")));
    }

    /**
     * Requires the one delivery of {@code eventId} for {@code jobType} and returns it.
     *
     * @throws AssertionError naming the event's deliveries when there is none
     */
    public Delivery requireDelivery(UUID eventId, String jobType) {
        List<Delivery> ofEvent = deliveriesOf(eventId);
        return ofEvent.stream()
                .filter(d -> d.jobType().equals(jobType))
                .findFirst()
                .orElseThrow(() ->
                        new AssertionError("expected a delivery of event " + eventId + " for " + jobType + ", found "
                                + (ofEvent.isEmpty()
                                        ? "none (is the event routed? call route() or drain())"
                                        : ofEvent.stream()
                                                .map(d -> d.jobType() + " " + d.status())
                                                .collect(Collectors.joining(", ")))));
    }

    private List<Delivery> deliveries(org.jooq.Condition which) {
        return OutboxDsl.mapped(dsl, tables)
                .select(
                        OUTBOX_DELIVERIES.ID,
                        OUTBOX_DELIVERIES.EVENT_ID,
                        OUTBOX_EVENTS.EVENT_TYPE,
                        OUTBOX_DELIVERIES.JOB_TYPE,
                        OUTBOX_DELIVERIES.QUEUE_NAME,
                        OUTBOX_DELIVERIES.STATUS,
                        OUTBOX_DELIVERIES.ATTEMPTS,
                        OUTBOX_DELIVERIES.AVAILABLE_AT,
                        OUTBOX_DELIVERIES.FAILURE_REASON)
                .from(OUTBOX_DELIVERIES)
                .join(OUTBOX_EVENTS)
                .on(OUTBOX_EVENTS.ID.eq(OUTBOX_DELIVERIES.EVENT_ID))
                .where(which)
                .orderBy(OUTBOX_DELIVERIES.EVENT_ID, OUTBOX_DELIVERIES.JOB_TYPE, OUTBOX_DELIVERIES.QUEUE_NAME)
                .fetch(r -> new Delivery(
                        r.value1(),
                        r.value2(),
                        r.value3(),
                        r.value4(),
                        r.value5(),
                        status(r.value6()),
                        r.value7(),
                        r.value8(),
                        r.value9()));
    }

    private static Delivery.Status status(OutboxDeliveryStatus status) {
        return Delivery.Status.valueOf(status.getLiteral().toUpperCase(Locale.ROOT));
    }

    // ------------------------------------------------------------------ with a broker

    /**
     * Runs passes of the application's real {@code relay} ({@link OutboxRelay#runOnce()}) in this
     * thread, while its real {@code OutboxWorker} consumes, until a pass finds nothing to do and every
     * delivery is settled (completed or failed); returns how many passes it ran. A retry waits for its
     * delay by the relay's clock; a delivery whose queue no worker reads stays dispatched, and this
     * waits for it until {@code timeout} ({@code ChronoUnit.FOREVER.getDuration()}, or anything longer
     * than about 292 years, waits without a limit).
     *
     * @throws AssertionError when the outbox is not drained within {@code timeout}, naming the deliveries
     *     still pending or dispatched
     */
    public int awaitDrained(OutboxRelay relay, Duration timeout) {
        Objects.requireNonNull(relay, "relay");
        Objects.requireNonNull(timeout, "timeout");
        long started = System.nanoTime();
        long limit = DurationLimits.saturatedNanos(timeout); // FOREVER: no limit
        int passes = 0;
        while (true) {
            PassResult pass = relay.runOnce();
            passes++;
            List<Delivery> busy = busy();
            if (pass.idle() && busy.isEmpty()) {
                return passes;
            }
            if (System.nanoTime() - started > limit) {
                throw new AssertionError(
                        "the outbox is not drained after " + timeout + " (" + passes + " relay passes): " + busy.size()
                                + " deliveries pending or dispatched: "
                                + busy.stream()
                                        .limit(10)
                                        .map(d -> d.jobType() + " on " + d.queue() + " " + d.status() + " attempt "
                                                + d.attempts())
                                        .collect(Collectors.joining(", ")));
            }
            if (pass.idle()) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the outbox to drain", e);
                }
            }
        }
    }

    /** Deliveries not settled yet: pending (ready or waiting for a retry's delay) or dispatched. */
    private List<Delivery> busy() {
        return deliveries(OUTBOX_DELIVERIES.STATUS.in(OutboxDeliveryStatus.pending, OutboxDeliveryStatus.dispatched));
    }

    /** Settings of an {@link OutboxTestKit}; the database is required, routes and handlers only for what uses them. */
    public static final class Builder {
        private @Nullable DataSource dataSource;
        private @Nullable DSLContext dsl;
        private @Nullable Routes routes;
        private OutboxTables tables = OutboxTables.defaults();
        private EventSerializer serializer = EventSerializer.jackson();
        private EventTypes eventTypes = EventTypes.annotated();
        private Clock clock = Clock.systemUTC();
        private final JobRunner.Builder runner = JobRunner.builder();
        private boolean hasHandlers;

        private Builder() {}

        /** The application's database, with the outbox migrations applied. Set this or {@link #dsl(DSLContext)}. */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** A jOOQ context on the application's database. Set this or {@link #dataSource(DataSource)}. */
        public Builder dsl(DSLContext dsl) {
            this.dsl = Objects.requireNonNull(dsl, "dsl");
            return this;
        }

        /** The routes {@link OutboxTestKit#route()} applies: the application's own. Required by route() and drain(). */
        public Builder routes(Routes routes) {
            this.routes = Objects.requireNonNull(routes, "routes");
            return this;
        }

        /** The schema and table names chosen at migration time. Default {@link OutboxTables#defaults()}. */
        public Builder tables(OutboxTables tables) {
            this.tables = Objects.requireNonNull(tables, "tables");
            return this;
        }

        /** Reads events, for the assertions and the handlers. Default {@link EventSerializer#jackson()}, as the outbox's. */
        public Builder serializer(EventSerializer serializer) {
            this.serializer = Objects.requireNonNull(serializer, "serializer");
            return this;
        }

        /** The names of event classes, for the assertions that take a class. Default {@link EventTypes#annotated()}. */
        public Builder eventTypes(EventTypes eventTypes) {
            this.eventTypes = Objects.requireNonNull(eventTypes, "eventTypes");
            return this;
        }

        /** The clock of the transitions (when a delivery is ready, when a retry is due). Default the system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Runs {@code handler} for deliveries of {@code jobType}, with the event read as
         * {@code eventClass}: the same arguments, and the same handler object, as the application gives
         * {@code OutboxWorker.Builder#handler}.
         */
        public <T> Builder handler(String jobType, Class<T> eventClass, JobHandler<T> handler) {
            runner.handler(jobType, eventClass, handler);
            hasHandlers = true;
            return this;
        }

        public OutboxTestKit build() {
            if ((dataSource == null) == (dsl == null)) {
                throw new IllegalArgumentException("dataSource or dsl: set exactly one of them");
            }
            if (routes == null && hasHandlers) {
                throw new IllegalArgumentException(
                        "routes: handlers run what routing created; give the routes of the application");
            }
            DSLContext context = dsl != null ? dsl : DSL.using(Objects.requireNonNull(dataSource), SQLDialect.POSTGRES);
            runner.dsl(context).tables(tables).serializer(serializer).clock(clock);
            return new OutboxTestKit(this, context);
        }
    }
}
