package dev.outbox.relay.internal;

import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.internal.Claimed;
import dev.outbox.delivery.internal.FailureReason;
import dev.outbox.delivery.internal.RelayTransitions;
import dev.outbox.delivery.internal.RetryOutcome;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.RelayLoggers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's meters in a Micrometer registry (docs/observability.md lists them): counters and
 * timers recorded by the engine as it goes; gauges read from the database by a thread of their
 * own every {@code interval} through {@link GaugeQueries}, never by a scrape. While the database
 * cannot be read the gauges are NaN. The only class of the relay that names a Micrometer type.
 */
public final class MicrometerRelayMeters implements RelayMeters {

    private static final Logger log = LoggerFactory.getLogger(RelayLoggers.RELAY);

    private final MeterRegistry registry;
    private final DataSource dataSource;
    private final OutboxTables tables;
    private final Clock clock;
    private final Counter routed;
    private final Counter routedUnkeyed;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, QueueConfirms> confirms = new ConcurrentHashMap<>();
    private final Map<String, QueueGauges> queueGauges = new ConcurrentHashMap<>();
    private final Map<String, QueueBackpressure> backpressure = new ConcurrentHashMap<>();
    private final Map<String, Value> failedGauges = new ConcurrentHashMap<>();
    private final Map<GaugeQueries.BlockedRoute, Value> blockedGauges = new ConcurrentHashMap<>();
    private final Value unrouted;
    private final ScheduledExecutorService reader;
    private volatile boolean readFailing;

    private MicrometerRelayMeters(
            MeterRegistry registry,
            DataSource dataSource,
            OutboxTables tables,
            Clock clock,
            Set<String> queues,
            Set<GaugeQueries.BlockedRoute> orderedRoutes,
            Duration interval) {
        this.registry = registry;
        this.dataSource = dataSource;
        this.tables = tables;
        this.clock = clock;
        this.routed = Counter.builder("outbox.relay.events.routed")
                .description("events routed into deliveries (T1)")
                .register(registry);
        this.routedUnkeyed = Counter.builder("outbox.relay.deliveries.unkeyed")
                .description("deliveries of ordered routes for events without an ordering key, dispatched unordered")
                .register(registry);
        this.unrouted = new Value();
        Gauge.builder("outbox.relay.events.unrouted", unrouted, Value::get)
                .description("events not yet routed, counted up to " + GaugeQueries.CAP)
                .register(registry);
        for (String queue : queues) {
            queueGauges(queue);
        }
        for (FailureReason reason : FailureReason.values()) {
            failedGauge(reason.code());
        }
        for (GaugeQueries.BlockedRoute route : orderedRoutes) {
            blockedGauge(route);
        }
        this.reader = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "outbox-relay-gauges");
            t.setDaemon(true);
            return t;
        });
        // runs until close; readGauges catches and logs its own failures
        var unused = reader.scheduleWithFixedDelay(this::readGauges, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Registers the relay's meters in {@code registry}; the gauges are of the deliveries in {@code tables}, read every {@code interval}.
     * The blocked-key gauge is there from the start for each of {@code orderedRoutes}.
     */
    public static RelayMeters register(
            MeterRegistry registry,
            DataSource dataSource,
            OutboxTables tables,
            Clock clock,
            Set<String> queues,
            Set<GaugeQueries.BlockedRoute> orderedRoutes,
            Duration interval) {
        return new MicrometerRelayMeters(registry, dataSource, tables, clock, queues, orderedRoutes, interval);
    }

    @Override
    public long passStarted() {
        return System.nanoTime();
    }

    @Override
    public void passEnded(long started, String outcome) {
        timers.computeIfAbsent(
                        "pass\0" + outcome,
                        k -> Timer.builder("outbox.relay.pass")
                                .description("relay passes, by how they ended")
                                .tag("outcome", outcome)
                                .register(registry))
                .record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    }

    @Override
    public void routed(int events) {
        if (events > 0) {
            routed.increment(events);
        }
    }

    @Override
    public void routedUnkeyed(int deliveries) {
        if (deliveries > 0) {
            routedUnkeyed.increment(deliveries);
        }
    }

    @Override
    public void dispatched(List<Claimed> claimed) {
        Map<String, int[]> byQueue = new HashMap<>();
        for (Claimed d : claimed) {
            byQueue.computeIfAbsent(key(d.queue(), kind(d.kind())), k -> new int[1])[0]++;
        }
        byQueue.forEach((key, n) -> counter(
                        "outbox.relay.deliveries.dispatched", "deliveries claimed and published (T2)", key, "kind")
                .increment(n[0]));
    }

    @Override
    public void confirmed(Claimed delivery, long latencyNanos) {
        // once per confirmed message, on the publish thread: one map lookup by the queue, no key composed
        QueueConfirms q = confirms.computeIfAbsent(delivery.queue(), QueueConfirms::new);
        q.counter(delivery.kind()).increment();
        if (latencyNanos >= 0) {
            q.latency.record(latencyNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** One queue's confirm meters, registered at its first confirm. */
    private final class QueueConfirms {
        private final String queue;
        private final Counter[] byKind = new Counter[RouteKind.values().length];
        private final Timer latency;

        QueueConfirms(String queue) {
            this.queue = queue;
            this.latency = Timer.builder("outbox.relay.confirm.latency")
                    .description("from a publish to the broker's confirm")
                    .tag("queue", queue)
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(30))
                    .register(registry);
        }

        @SuppressWarnings(
                "EnumOrdinal") // an array by kind, read without a lock on the confirm path (an EnumMap is not safe to
        // share)
        Counter counter(RouteKind kind) {
            Counter c = byKind[kind.ordinal()];
            if (c == null) { // a benign race: the registry returns the one counter of these tags either way
                c = MicrometerRelayMeters.this.counter(
                        "outbox.relay.deliveries.confirmed",
                        "publishes confirmed by the broker",
                        key(queue, kind(kind)),
                        "kind");
                byKind[kind.ordinal()] = c;
            }
            return c;
        }
    }

    @Override
    public void refused(Claimed delivery, String cause) {
        counter(
                        "outbox.relay.deliveries.refused",
                        "publishes the broker did not take (T3), by cause",
                        key(delivery.queue(), cause),
                        "cause")
                .increment();
    }

    @Override
    public void completed(List<Claimed> confirmed, List<UUID> completed) {
        // once per settled batch: counted per queue first, one counter lookup per queue
        Set<UUID> ids = new HashSet<>(completed);
        Map<String, int[]> byQueue = new HashMap<>();
        for (Claimed d : confirmed) {
            if (ids.contains(d.deliveryId())) {
                byQueue.computeIfAbsent(d.queue(), q -> new int[1])[0]++;
            }
        }
        byQueue.forEach((queue, n) -> counter(
                        "outbox.relay.publish.completed",
                        "publish-route deliveries completed on the broker's confirm",
                        key(queue, null),
                        null)
                .increment(n[0]));
    }

    @Override
    public void timedOut(List<RetryOutcome> outcomes) {
        for (RetryOutcome o : outcomes) {
            counter(
                            "outbox.relay.deliveries.timed.out",
                            "dispatches past their delivery timeout (T4)",
                            key(o.queue(), null),
                            null)
                    .increment();
        }
    }

    @Override
    public void timedOutUnstarted(List<RelayTransitions.UnstartedTimeout> unstarted) {
        for (RelayTransitions.UnstartedTimeout u : unstarted) {
            counter(
                            "outbox.relay.deliveries.timed.out.unstarted",
                            "dispatches past their delivery timeout that no worker took (T4u), sent again"
                                    + " without counting an attempt",
                            key(u.queue(), null),
                            null)
                    .increment();
        }
    }

    @Override
    public void queueDepth(String queue, long depth, int maxDepth) {
        QueueBackpressure b = backpressure(queue);
        b.depth.set((double) depth);
        b.maxDepth.set(maxDepth);
    }

    @Override
    public void queueHeld(String queue, boolean held) {
        QueueBackpressure b = backpressure(queue);
        b.held.set(held ? 1 : 0);
        if (held) {
            b.holds.increment();
        }
    }

    private QueueBackpressure backpressure(String queue) {
        return backpressure.computeIfAbsent(queue, QueueBackpressure::new);
    }

    /** One job queue's backpressure meters, registered when the relay first reads its depth. */
    private final class QueueBackpressure {
        final Value depth = new Value();
        final Value held = new Value();
        final Value maxDepth = new Value();
        final Counter holds;

        QueueBackpressure(String queue) {
            Gauge.builder("outbox.relay.queue.depth", depth, Value::get)
                    .description("messages waiting in the job queue, as the relay last knew"
                            + " (the broker's count plus its publishes since)")
                    .tag("queue", queue)
                    .register(registry);
            Gauge.builder("outbox.relay.queue.depth.max", maxDepth, Value::get)
                    .description("the relay's bound of messages waiting in the"
                            + " job queue (OUTBOX_MAX_QUEUE_DEPTH): at it, the relay holds back dispatches")
                    .tag("queue", queue)
                    .register(registry);
            held.set(0);
            Gauge.builder("outbox.relay.queue.held", held, Value::get)
                    .description("1 while the relay holds back dispatches to the job queue"
                            + " (its depth reached the bound), else 0")
                    .tag("queue", queue)
                    .register(registry);
            holds = Counter.builder("outbox.relay.queue.holds")
                    .description("times the relay began to hold back dispatches to the job queue")
                    .tag("queue", queue)
                    .register(registry);
        }
    }

    @Override
    public void close() {
        reader.shutdownNow();
    }

    /** Reads the gauges now (also the reader thread's task). */
    void readGauges() {
        GaugeQueries.Snapshot s;
        try {
            s = GaugeQueries.read(dataSource, tables, clock.instant());
        } catch (RuntimeException e) {
            if (!readFailing) {
                log.debug(
                        "the gauges cannot be read ({}): NaN until the database answers",
                        e.getClass().getSimpleName());
            }
            readFailing = true;
            queueGauges.values().forEach(QueueGauges::unknown);
            failedGauges.values().forEach(Value::unknown);
            blockedGauges.values().forEach(Value::unknown);
            unrouted.unknown();
            return;
        }
        readFailing = false;
        unrouted.set((double) s.unrouted());
        s.queues().keySet().forEach(this::queueGauges);
        queueGauges.forEach((queue, g) -> g.set(s.queues().get(queue)));
        s.failed().keySet().forEach(this::failedGauge);
        failedGauges.forEach((reason, v) -> v.set(s.failed().getOrDefault(reason, 0L)));
        s.blocked().keySet().forEach(this::blockedGauge);
        blockedGauges.forEach((route, v) -> v.set(s.blocked().getOrDefault(route, 0L)));
    }

    private Counter counter(String name, String description, String key, @Nullable String secondTag) {
        return counters.computeIfAbsent(name + '\0' + key, k -> {
            int split = key.indexOf('\0');
            Counter.Builder b = Counter.builder(name)
                    .description(description)
                    .tag("queue", split < 0 ? key : key.substring(0, split));
            if (secondTag != null) {
                b.tag(secondTag, key.substring(split + 1));
            }
            return b.register(registry);
        });
    }

    private static String key(String queue, @Nullable String second) {
        return second == null ? queue : queue + '\0' + second;
    }

    private static String kind(RouteKind kind) {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    private QueueGauges queueGauges(String queue) {
        return queueGauges.computeIfAbsent(queue, q -> new QueueGauges(registry, q));
    }

    private Value failedGauge(String reason) {
        return failedGauges.computeIfAbsent(reason, r -> {
            Value v = new Value();
            Gauge.builder("outbox.relay.deliveries.failed", v, Value::get)
                    .description("failed deliveries by reason, counted up to " + GaugeQueries.CAP)
                    .tag("reason", r)
                    .register(registry);
            return v;
        });
    }

    private Value blockedGauge(GaugeQueries.BlockedRoute route) {
        return blockedGauges.computeIfAbsent(route, r -> {
            Value v = new Value();
            Gauge.builder("outbox.relay.keys.blocked", v, Value::get)
                    .description("keys blocked on an ordered route (their heads failed for"
                            + " good, policy block, not skipped), counted among the " + GaugeQueries.CAP
                            + " newest blocked heads")
                    .tag("route", r.route())
                    .tag("queue", r.queue())
                    .register(registry);
            return v;
        });
    }

    /** A gauge's last reading; NaN until the first and while the database cannot be read. */
    private static final class Value {
        private volatile double value = Double.NaN;

        double get() {
            return value;
        }

        void set(double value) {
            this.value = value;
        }

        void unknown() {
            value = Double.NaN;
        }
    }

    private static final class QueueGauges {
        final Value pending = new Value();
        final Value ready = new Value();
        final Value oldestReadyAge = new Value();

        QueueGauges(MeterRegistry registry, String queue) {
            Gauge.builder("outbox.relay.deliveries.pending", pending, Value::get)
                    .description("pending deliveries, counted up to " + GaugeQueries.CAP + " in all")
                    .tag("queue", queue)
                    .register(registry);
            Gauge.builder("outbox.relay.deliveries.ready", ready, Value::get)
                    .description("pending deliveries ready to be dispatched now")
                    .tag("queue", queue)
                    .register(registry);
            Gauge.builder("outbox.relay.oldest.ready.age", oldestReadyAge, Value::get)
                    .baseUnit("seconds")
                    .description("how long the oldest ready delivery has waited (0: none ready)")
                    .tag("queue", queue)
                    .register(registry);
        }

        void set(GaugeQueries.@Nullable Queue q) {
            if (q == null) {
                pending.set(0);
                ready.set(0);
                oldestReadyAge.set(0);
                return;
            }
            pending.set(q.pending());
            ready.set(q.ready());
            Duration age = q.oldestReadyAge();
            oldestReadyAge.set(age == null ? 0 : Math.max(0, age.toMillis() / 1000.0));
        }

        void unknown() {
            pending.unknown();
            ready.unknown();
            oldestReadyAge.unknown();
        }
    }
}
