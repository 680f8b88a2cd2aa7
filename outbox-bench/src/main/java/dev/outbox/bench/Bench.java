package dev.outbox.bench;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.api.NewEvent;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.internal.DeliveryMessage;
import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.TestPostgres;
import dev.outbox.testing.TestRabbit;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The end-to-end benchmark: relay and worker each in a process of its own, as users run them,
 * against the PostgreSQL and RabbitMQ the environment names (the tests' resolution). Every run checks
 * that every delivery was completed exactly once and no event was lost, then prints a table.
 *
 * <pre>
 * java -jar outbox-bench/target/outbox-bench.jar [--runs 3] [--scenarios S1,S2,S3,S4,S5,CEIL] [--smoke]
 * java -jar outbox-bench/target/outbox-bench.jar --runs 3 --scenarios S1,S1-METRICS,S2,S2-METRICS   # the cost of the meters, not a default
 * java -jar outbox-bench/target/outbox-bench.jar --runs 1 --scenarios P1     # retention beside S2's load, not a default
 * java -jar outbox-bench/target/outbox-bench.jar --runs 3 --scenarios S2,S2-ORDERED,S2-HOT  # ordered routes (issue 39): 1,000 keys, 10 hot keys
 * java -jar outbox-bench/target/outbox-bench.jar --runs 1 --scenarios REF-R1,R1,R1-QUIET  # R1 with and without NOTIFY, not a default
 * java -jar outbox-bench/target/outbox-bench.jar --runs 3 --scenarios REF-R1,R1,R1-EVERY,REF-S2,S2,S2-EVERY,S4,S4-EVERY  # a NOTIFY per recording
 * java -jar outbox-bench/target/outbox-bench.jar --runs 1 --scenarios S4 --timeline  # S4's latency and its producers' transactions second by second, S2's by the second of the commit
 * java -jar outbox-bench/target/outbox-bench.jar --runs 1 --scenarios S1 --threads   # relay's and worker's CPU by thread (the compilers' share)
 * </pre>
 */
public final class Bench {

    static final String RELAY_MAIN = "dev.outbox.relay.cli.RelayCommand";
    static final String WORKER_MAIN = "dev.outbox.bench.BenchWorker";
    static final String FRESH_REFERENCE_MAIN = "dev.outbox.bench.FreshReference";
    /** The relay's poll sleep ({@code --sleep}), the bound of S4 poll-only's latency target. */
    static final int RELAY_SLEEP_SECONDS = 1;

    private final Scale scale;
    private final Path workDir;
    /**
     * {@code --timeline}: S4 prints its commit→handler start second by second and its producers' transactions by the second they
     * began in, and the stages of its latency ({@link Stages}); S2 its commit→completed by the second of the commit.
     */
    boolean timeline;
    /**
     * {@code --cold-producers}: S4's producers start their schedule in a JVM that has not recorded an
     * event yet (as S4 ran before 2026-12-03), instead of after the same producers warmed up in a
     * schema of their own ({@link #warmUpProducers}).
     */
    private boolean coldProducers;
    /** {@code --threads}: each scenario prints the CPU seconds of relay and worker by thread (compilers, pass, lookups ...). */
    private boolean threads;

    private final TestPostgres pg = TestPostgres.get();
    private final TestRabbit rabbit = TestRabbit.get();
    private final Map<String, Map<String, List<Double>>> results = new LinkedHashMap<>();
    /** Where relay and worker write a flight recording each (--jfr), or null. */
    private @org.jspecify.annotations.Nullable Path jfrDir;
    /** More JVM options for relay and worker ({@code --service-jvm}), after the benchmark's own. */
    private List<String> serviceJvm = List.of();
    /**
     * The relay's own JVM options, after the benchmark's heap and collector: those outbox-relay/README.md gives
     * for the service ({@code --relay-jvm} replaces them, e.g. {@code --relay-jvm ""} for the JVM's defaults).
     */
    static final List<String> RELAY_JVM = List.of("-XX:TieredStopAtLevel=1");

    private List<String> relayJvm = RELAY_JVM;
    /** {@code --relay-env}: settings of the relay service on top of the bench's, for A/B runs of one setting. */
    private Map<String, String> relayEnv = Map.of();
    /**
     * Whether the scenario runs with the meters on (S1-METRICS, S2-METRICS): the relay service with
     * {@code OUTBOX_HTTP_PORT} and its {@code /metrics} scraped every {@link #SCRAPE_SECONDS}, the worker and
     * the producers with a Prometheus registry scraped as often.
     */
    private boolean metrics;
    /** The producers' {@code Outbox.Builder.notifyInterval}: the default, or zero in the *-EVERY scenarios. */
    private Duration notifyInterval = Outbox.DEFAULT_NOTIFY_INTERVAL;

    static final int SCRAPE_SECONDS = 5;

    /** The numbers of one benchmark size. */
    record Scale(
            int backlog,
            int liveSeconds,
            int fixedRate,
            int fixedSeconds,
            int recordSeconds,
            int ceilingSeconds,
            int ceilingMessages,
            int producerSeconds,
            int purgeRows) {
        static final Scale FULL = new Scale(100_000, 30, 1_000, 60, 10, 10, 100_000, 15, 1_000_000);
        static final Scale SMOKE = new Scale(500, 2, 100, 2, 1, 1, 1_000, 1, 2_000);

        /** This scale with another backlog for S1 and REF-S1 ({@code --backlog}). */
        Scale withBacklog(int events) {
            return new Scale(
                    events,
                    liveSeconds,
                    fixedRate,
                    fixedSeconds,
                    recordSeconds,
                    ceilingSeconds,
                    ceilingMessages,
                    producerSeconds,
                    purgeRows);
        }
    }

    /** {@code OUTBOX_A=1,OUTBOX_B=2}: relay service settings; anything else stops the bench naming the option. */
    static Map<String, String> settings(String option, String text) {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String pair : text.split(",", -1)) { // a trailing comma is an empty pair, refused
            int eq = pair.indexOf('=');
            if (eq < 1 || !pair.startsWith("OUTBOX_")) {
                throw new IllegalArgumentException(
                        option + ": expected OUTBOX_NAME=value[,OUTBOX_NAME=value], got '" + pair + "'");
            }
            settings.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return settings;
    }

    private static List<String> options(String text) {
        return text.isBlank() ? List.of() : List.of(text.trim().split("\\s+"));
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        System.err.println(option + " takes a positive whole number, got \"" + value + "\"");
        System.exit(2);
        return 0;
    }

    /** The default scenarios: each reference beside the scenarios measured against it, so that drift hits both. */
    static final List<String> DEFAULT_SCENARIOS = List.of(
            "CEIL", "REF-S1", "REF-S1-FRESH", "S1", "REF-S2", "S2", "S3", "S4", "S5", "REF-R1", "REF-R1-TX", "R1");

    Bench(Scale scale, Path workDir) {
        this.scale = scale;
        this.workDir = workDir;
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        int runs = 3;
        List<String> scenarios = DEFAULT_SCENARIOS;
        Scale scale = Scale.FULL;
        Path jfrDir = null;
        boolean pgStat = false;
        List<String> serviceJvm = List.of();
        List<String> relayJvm = RELAY_JVM;
        Map<String, String> relayEnv = Map.of();
        Integer backlog = null;
        boolean timeline = false;
        boolean threads = false;
        boolean coldProducers = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jfr" -> jfrDir = Path.of(args[++i]).toAbsolutePath();
                case "--pg-stat" -> pgStat = true;
                case "--service-jvm" -> serviceJvm = options(args[++i]);
                case "--relay-jvm" -> relayJvm = options(args[++i]);
                case "--relay-env" -> relayEnv = settings("--relay-env", args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--scenarios" ->
                    scenarios = List.of(args[++i].toUpperCase(Locale.ROOT).split(","));
                case "--smoke" -> scale = Scale.SMOKE;
                case "--backlog" -> backlog = positive("--backlog", args[++i]);
                case "--timeline" -> timeline = true;
                case "--threads" -> threads = true;
                case "--cold-producers" -> coldProducers = true;
                default -> {
                    System.err.println("usage: bench [--runs N] [--scenarios " + String.join(",", DEFAULT_SCENARIOS)
                            + "] [--smoke]"
                            + " [--backlog EVENTS] [--timeline] [--threads] [--cold-producers] [--jfr DIR] [--pg-stat] [--service-jvm \"OPTIONS\"] [--relay-jvm \"OPTIONS\"]"
                            + " [--relay-env OUTBOX_NAME=value,...]");
                    System.exit(2);
                }
            }
        }
        if (backlog != null) {
            scale = scale.withBacklog(backlog);
        }
        Bench bench = new Bench(scale, Files.createTempDirectory("outbox-bench"));
        bench.serviceJvm = serviceJvm;
        bench.relayJvm = relayJvm;
        bench.relayEnv = relayEnv;
        bench.timeline = timeline;
        bench.threads = threads;
        bench.coldProducers = coldProducers;
        if (jfrDir != null) {
            Files.createDirectories(jfrDir);
            bench.jfrDir = jfrDir;
        }
        System.out.printf(
                "machine: %d cores, %s; PostgreSQL %s (%s); RabbitMQ %s%n",
                Runtime.getRuntime().availableProcessors(),
                memory(),
                bench.pg.jdbcUrl(),
                bench.pg.source(),
                bench.rabbit.source());
        if (!relayEnv.isEmpty()) {
            System.out.println("relay settings: " + relayEnv);
        }
        for (int run = 1; run <= runs; run++) {
            for (String s : scenarios) {
                System.out.printf("run %d/%d %s ...%n", run, runs, s);
                PgStatements statements = pgStat ? PgStatements.start(bench.pg) : null;
                try {
                    bench.run(s);
                } finally {
                    if (statements != null) {
                        statements.close();
                    }
                }
                if (statements != null) {
                    statements.print("run " + run + " " + s, 15);
                }
            }
        }
        bench.print();
    }

    Map<String, Map<String, List<Double>>> results() {
        return results;
    }

    void run(String scenario) throws Exception {
        switch (scenario) {
            case "CEIL" -> ceilings();
            case "S1" -> backlogDrain("S1");
            case "S2" -> liveProducers(false, "S2", 0);
            case "S2-ORDERED" -> liveProducers(false, "S2-ORDERED", ORDERED_KEYS);
            case "S2-HOT" -> liveProducers(false, "S2-HOT", HOT_KEYS);
            case "S1-METRICS" -> withMetrics(() -> backlogDrain("S1-METRICS"));
            case "S2-METRICS" -> withMetrics(() -> liveProducers(false, "S2-METRICS", 0));
            case "S3" -> liveProducers(true, "S3", 0);
            case "S4" -> fixedRate();
            case "Q1" -> quietRecordings();
            case "S5" -> recordingAlone();
            case "R1" -> recordingOneByOne(true);
            case "R1-QUIET" -> recordingOneByOne(false);
            case "R1-EVERY" -> notifyingEveryTime(() -> recordingOneByOne(true));
            case "S2-EVERY" -> notifyingEveryTime(() -> liveProducers(false, "S2-EVERY", 0));
            case "S4-EVERY" -> notifyingEveryTime(this::fixedRate);
            case "REF-S1" -> referenceBacklogDrain();
            case "REF-S1-FRESH" -> freshReferenceBacklogDrain();
            case "REF-S2" -> referenceLiveProducers();
            case "REF-R1" -> referenceRecording("REF-R1", false);
            case "REF-R1-TX" -> referenceRecording("REF-R1-TX", true);
            case "P1" -> purgeBesideLiveProducers();
            case "AMQP-HEADERS" -> amqpHeaders();
            default -> throw new IllegalArgumentException("unknown scenario " + scenario);
        }
    }

    // ---------------------------------------------------------------- scenarios

    interface Scenario {
        void run() throws Exception;
    }

    /** The producers' outbox with {@code notifyInterval(Duration.ZERO)}: a NOTIFY from every recording transaction. */
    private void notifyingEveryTime(Scenario scenario) throws Exception {
        notifyInterval = Duration.ZERO;
        try {
            scenario.run();
        } finally {
            notifyInterval = Outbox.DEFAULT_NOTIFY_INTERVAL;
        }
    }

    private void withMetrics(Scenario scenario) throws Exception {
        metrics = true;
        try {
            scenario.run();
        } finally {
            metrics = false;
        }
    }

    private void ceilings() throws Exception {
        try (Schema schema = Schema.create(pg)) {
            put(
                    "CEIL",
                    "PostgreSQL insert+claim+complete rows/s",
                    Ceilings.postgresRowsPerSecond(pg, schema.name, scale.ceilingSeconds));
        }
        put(
                "CEIL",
                "RabbitMQ confirmed persistent publishes/s",
                Ceilings.rabbitPublishesPerSecond(
                        rabbit.connectionFactory(), "bench-ceiling-" + shortId(), scale.ceilingMessages));
    }

    /**
     * AMQP-HEADERS (not a default scenario): what a message's header table costs the broker. The same
     * persistent job message body is published and consumed three ways, in turn, twice: with the
     * properties a job message has now (message id, type, no headers), with a {@code traceparent}
     * header (an event recorded with a trace context), and with the seven {@code outbox-*} headers
     * job messages carried until 0.1.0. The broker's CPU per message is read from {@code /proc}, so
     * it needs the broker on this machine (NaN otherwise).
     */
    private void amqpHeaders() throws Exception {
        java.util.UUID id = java.util.UUID.randomUUID();
        DeliveryMessage message =
                new DeliveryMessage(id, id, id, Reference.EVENT_TYPE, Reference.JOB_TYPE, 1, false, null, null);
        byte[] body = message.toJson();
        AMQP.BasicProperties now = message.properties(); // as a relay publishes it
        AMQP.BasicProperties traced = new DeliveryMessage(
                        id,
                        id,
                        id,
                        Reference.EVENT_TYPE,
                        Reference.JOB_TYPE,
                        1,
                        false,
                        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                        null)
                .properties();
        Map<String, Object> seven = new LinkedHashMap<>();
        seven.put("outbox-event-id", id.toString());
        seven.put("outbox-delivery-id", id.toString());
        seven.put("outbox-dispatch-id", id.toString());
        seven.put("outbox-event-type", Reference.EVENT_TYPE);
        seven.put("outbox-job-type", Reference.JOB_TYPE);
        seven.put("outbox-attempt", 1);
        seven.put("outbox-last-attempt", false);
        AMQP.BasicProperties before = now.builder().headers(seven).build();
        Map<String, AMQP.BasicProperties> kinds = new LinkedHashMap<>();
        kinds.put("job message without headers", now);
        kinds.put("with a traceparent header", traced);
        kinds.put("with the seven outbox-* headers of before 0.1.0", before);
        for (int round = 0; round < 2; round++) {
            for (Map.Entry<String, AMQP.BasicProperties> kind : kinds.entrySet()) {
                put(
                        "AMQP-HEADERS",
                        "broker CPU µs per message, " + kind.getKey(),
                        Ceilings.brokerMicrosPerMessage(
                                rabbit.connectionFactory(),
                                "bench-headers-" + shortId(),
                                scale.ceilingMessages / 2,
                                kind.getValue(),
                                body));
            }
        }
    }

    /** S1: a backlog recorded beforehand, then relay and worker drain it. */
    private void backlogDrain(String name) throws Exception {
        try (Schema schema = Schema.create(pg);
                Topology topology = Topology.jobRoute(schema, rabbit, workDir)) {
            recordBacklog(schema, scale.backlog);
            try (Processes p = Processes.start(this, schema, topology, false)) {
                long half = awaitCompletedAtLeast(schema, scale.backlog / 2, Duration.ofMinutes(10));
                double[] atHalf = p.cpuSecondsNow();
                awaitCompleted(schema, scale.backlog, Duration.ofMinutes(10));
                p.sample();
                put(name, "events/s (backlog " + scale.backlog + ")", schema.drainRate());
                p.report(name, scale.backlog);
                p.reportSince(name, atHalf, scale.backlog - half);
            }
            verifyExactlyOnce(schema, scale.backlog);
        }
    }

    /** The ordering keys of S2-ORDERED (an aggregate each) and of S2-HOT (a few hot ones). */
    static final int ORDERED_KEYS = 1_000;

    static final int HOT_KEYS = 10;
    /** How long S2-HOT waits for its backlog after the producers stop. */
    static final int HOT_DRAIN_SECONDS = 60;

    /**
     * S2 (job route) and S3 (publish route, plain consumer): 4 producers, one event per transaction.
     * With {@code keys} &gt; 0 (S2-ORDERED, S2-HOT) the job route is ordered and each event gets one of
     * that many ordering keys in turn: one delivery per key in flight, the next after the head
     * completes (docs/ordering.md).
     */
    private void liveProducers(boolean publish, String name, int keys) throws Exception {
        try (Schema schema = Schema.create(pg);
                Topology topology = publish
                        ? Topology.publishRoute(schema, rabbit, workDir)
                        : Topology.jobRoute(schema, rabbit, workDir, keys > 0);
                Processes p = Processes.start(this, schema, topology, false)) {
            PlainConsumer consumer =
                    publish ? PlainConsumer.start(rabbit.connectionFactory(), topology.consumerQueue) : null;
            long recorded =
                    produce(schema, Production.of(4, scale.liveSeconds, 0).keys(keys));
            boolean drained = true;
            if (publish) {
                consumer.await(recorded, Duration.ofMinutes(5));
                awaitCompleted(schema, recorded, Duration.ofMinutes(5));
                long[] latencies = Stats.sorted(consumer.latenciesMicros());
                put(name, "events/s", consumer.count() / consumer.spanSeconds());
                latencyColumns(name, "commit→consumed", latencies);
                consumer.close();
            } else if (keys > 0 && keys <= HOT_KEYS) {
                // a few hot keys: one delivery per key at a time cannot keep up with 4 unthrottled
                // producers, so the backlog grows; what it does is the rate it completes at meanwhile
                long drainStart = System.nanoTime();
                drained = tryAwaitCompleted(schema, recorded, Duration.ofSeconds(HOT_DRAIN_SECONDS));
                double seconds = scale.liveSeconds + (System.nanoTime() - drainStart) / 1e9;
                long completed = schema.dsl()
                        .fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.completed));
                put(name, "events/s recorded", recorded / (double) scale.liveSeconds);
                put(
                        name,
                        "events/s completed (while producing, then up to " + HOT_DRAIN_SECONDS + " s)",
                        completed / seconds);
                put(name, "share completed", completed / (double) recorded);
                completionColumns(name, schema);
            } else {
                awaitCompleted(schema, recorded, Duration.ofMinutes(5));
                put(name, "events/s", recorded / (double) scale.liveSeconds);
                completionColumns(name, schema);
            }
            p.sample();
            p.report(name, recorded);
            if (drained) {
                verifyExactlyOnce(schema, recorded);
            } else {
                verifyNoEventLostNorRedispatched(schema, recorded);
            }
        }
    }

    /**
     * Commit→completed of a live-producer scenario: over the whole run, over the events recorded
     * after its first {@value #WARM_UP_SECONDS} s, and with {@code --timeline} by the second each event
     * was recorded in (where the tail comes from).
     */
    private void completionColumns(String name, Schema schema) {
        List<long[]> seconds = schema.completionLatenciesBySecond();
        latencyColumns(
                name,
                "commit→completed",
                Stats.sorted(
                        seconds.stream().flatMapToLong(java.util.Arrays::stream).toArray()));
        long[] later = Stats.sorted(seconds.stream()
                .skip(WARM_UP_SECONDS)
                .flatMapToLong(java.util.Arrays::stream)
                .toArray());
        if (later.length > 0) {
            put(
                    name,
                    "commit→completed p99 ms, after the first " + WARM_UP_SECONDS + " s",
                    Stats.percentile(later, 99) / 1000.0);
        }
        if (timeline) {
            for (int sec = 0; sec < seconds.size(); sec++) {
                long[] l = Stats.sorted(seconds.get(sec));
                if (l.length > 0) {
                    System.out.println(name + " second " + sec + ": " + l.length + " events, " + Stats.tail(l, 1000));
                }
            }
        }
    }

    /**
     * S4: a fixed offered rate; commit→handler-start latency with LISTEN/NOTIFY and with polling only.
     * When the pipeline cannot keep up, that is the result: the share completed within a minute
     * after the producers stop is reported, and the latencies are those of the handled events.
     *
     * <p>The producers stand for an application that has been recording for a while: they warm up
     * first ({@link #warmUpProducers}; not with {@code --cold-producers}), since a cold producer that
     * is late catches up at once and offers a burst instead of the rate. Relay and worker still
     * start cold, as a user starts them.
     */
    private void fixedRate() throws Exception {
        // how often the producers notify changes nothing for a relay that only polls
        boolean every = notifyInterval.isZero();
        for (boolean pollOnly : every ? new boolean[] {false} : new boolean[] {false, true}) {
            String name = (every ? "S4-EVERY" : "S4") + (pollOnly ? " poll-only" : " LISTEN/NOTIFY");
            if (!coldProducers) {
                warmUpProducers(name);
            }
            try (Schema schema = Schema.create(pg);
                    Topology topology = Topology.jobRoute(schema, rabbit, workDir);
                    Processes p = Processes.start(this, schema, topology, pollOnly)) {
                TransactionTimeline transactions = timeline ? new TransactionTimeline() : null;
                CommitTimes commits = new CommitTimes(scale.fixedSeconds * scale.fixedRate + 4);
                long recorded = produce(
                        schema,
                        Production.of(4, scale.fixedSeconds, scale.fixedRate)
                                .transactions(transactions)
                                .commits(commits));
                boolean drained = tryAwaitCompleted(schema, recorded, Duration.ofSeconds(60));
                p.sample();
                p.stopWorker();
                BenchWorker.Handled read =
                        BenchWorker.readLatencies(topology.latencyFile); // in the order the handlers started
                long[] handled = commits.fromCommitMicros(read.sequences(), read.fromMadeMicros());
                long[] latencies = Stats.sorted(handled);
                if (timeline) { // the latency second by second, at the offered rate: the warm-up, then whether it
                    // drifts
                    List<long[]> seconds = Stats.sortedSlices(handled, scale.fixedRate);
                    for (int second = 0; second < seconds.size(); second++) {
                        System.out.println(name + " second " + second + ": " + Stats.tail(seconds.get(second), 1000));
                    }
                    if (transactions != null) { // the producers' own share of the latency: their transactions
                        transactions.lines(name).forEach(System.out::println);
                    }
                    stages(schema, read, handled).lines(name, scale.fixedRate).forEach(System.out::println);
                }
                put(name, "events/s offered", (double) scale.fixedRate);
                put(name, "events/s recorded", recorded / (double) scale.fixedSeconds);
                long completed = schema.dsl()
                        .fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.completed));
                put(name, "% completed within 60 s after the producers stopped", 100.0 * completed / recorded);
                latencyColumns(name, "commit→handler start", latencies);
                // from when the event was made, before its transaction: what this scenario measured before 2026-12-03
                long[] fromMade = Stats.sorted(read.fromMadeMicros());
                put(name, "made→handler start p50 ms", Stats.percentile(fromMade, 50) / 1000.0);
                put(name, "made→handler start p99 ms", Stats.percentile(fromMade, 99) / 1000.0);
                // the tail without the first 10 s of handled events: what is left once relay and worker are compiled
                int warm = Math.min(handled.length, scale.fixedRate * WARM_UP_SECONDS);
                if (warm < handled.length) {
                    long[] later = Stats.sorted(java.util.Arrays.copyOfRange(handled, warm, handled.length));
                    put(
                            name,
                            "commit→handler start p99 ms, after the first " + WARM_UP_SECONDS + " s",
                            Stats.percentile(later, 99) / 1000.0);
                }
                p.report(name, recorded);
                if (drained) {
                    verifyExactlyOnce(schema, recorded);
                } else {
                    verifyNoEventLost(schema, recorded);
                }
            }
        }
    }

    /**
     * Each handled event's {@link Stages}: its handler's start from when it was made ({@code handled})
     * and its commit from that start less {@code fromCommit} (the same events' commit→handler start),
     * the relay's T1 and T2 times from its delivery ({@code created_at}, {@code dispatched_at}).
     */
    private static Stages stages(Schema schema, BenchWorker.Handled handled, long[] fromCommit) {
        Map<Long, long[]> bySequence = new HashMap<>(); // made, T1, T2 (µs since the epoch)
        org.jooq.Field<Long> sequence = DSL.field("({0} ->> 'sequence')::bigint", Long.class, OUTBOX_EVENTS.PAYLOAD);
        org.jooq.Field<Long> made =
                DSL.field("({0} ->> 'recordedAtMicros')::bigint", Long.class, OUTBOX_EVENTS.PAYLOAD);
        org.jooq.Field<Long> routed =
                DSL.field("(extract(epoch from {0}) * 1000000)::bigint", Long.class, OUTBOX_DELIVERIES.CREATED_AT);
        org.jooq.Field<Long> claimed =
                DSL.field("(extract(epoch from {0}) * 1000000)::bigint", Long.class, OUTBOX_DELIVERIES.DISPATCHED_AT);
        schema.dsl()
                .select(sequence, made, routed, claimed)
                .from(OUTBOX_DELIVERIES)
                .join(OUTBOX_EVENTS)
                .on(OUTBOX_EVENTS.ID.eq(OUTBOX_DELIVERIES.EVENT_ID))
                .forEach(r -> bySequence.put(r.value1(), new long[] {r.value2(), r.value3(), r.value4()}));
        int n = handled.sequences().length;
        long[] toRouted = new long[n];
        long[] toClaimed = new long[n];
        long[] toHandler = new long[n];
        for (int i = 0; i < n; i++) {
            long[] times = bySequence.get(handled.sequences()[i]);
            if (times == null) {
                throw new IllegalStateException("handled event " + handled.sequences()[i] + " has no delivery");
            }
            long start = times[0] + handled.fromMadeMicros()[i];
            toRouted[i] = times[1] - (start - fromCommit[i]);
            toClaimed[i] = times[2] - times[1];
            toHandler[i] = start - times[2];
        }
        return new Stages(toRouted, toClaimed, toHandler);
    }

    /** The shortest warm-up of S4's producers: 3 s of a full run's 60. */
    private int producerWarmUpSeconds() {
        return Math.max(1, scale.fixedSeconds / 20);
    }

    /** The longest warm-up of S4's producers, when this JVM's JIT does not come to rest: 30 s of a full run's 60. */
    private int producerWarmUpMaxSeconds() {
        return Math.max(producerWarmUpSeconds(), scale.fixedSeconds / 2);
    }

    /**
     * S4's producers warm up at this many times the offered rate: on their schedule, so that the code the
     * JIT compiles has seen a producer wait for its next event as a measured run's does (warmed up as fast
     * as they could, this JVM still compiled for a third of a core in the measured run's first seconds).
     */
    static final int WARM_UP_RATE_FACTOR = 2;

    /** A warm-up round after which this JVM's JIT compiled for less than this is the last one. */
    static final long WARM_UP_QUIET_COMPILE_MILLIS = 100;

    /**
     * S4's producers warm up before relay and worker start, so that the producing JVM's compilers do
     * not take the two cores from the pipeline in its first seconds. In a schema of their own that
     * nothing reads, they record at {@value #WARM_UP_RATE_FACTOR} × the offered rate, in rounds of
     * {@link #producerWarmUpSeconds} through new connection pools as the measured run uses, until a
     * round compiled for less than {@value #WARM_UP_QUIET_COMPILE_MILLIS} ms, or for
     * {@link #producerWarmUpMaxSeconds} in all.
     */
    private void warmUpProducers(String name) throws Exception {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        boolean measurable = jit != null && jit.isCompilationTimeMonitoringSupported();
        int round = producerWarmUpSeconds();
        int seconds = 0;
        long compiled = -1;
        List<Long> rounds = new ArrayList<>(); // each round's JIT milliseconds
        try (Schema warm = Schema.create(pg)) {
            do {
                try (Schema connections = warm.newConnections()) {
                    long before = measurable ? jit.getTotalCompilationTime() : 0;
                    int capacity = round * WARM_UP_RATE_FACTOR * scale.fixedRate + 4;
                    produce(
                            connections,
                            Production.of(4, round, WARM_UP_RATE_FACTOR * scale.fixedRate)
                                    .transactions(new TransactionTimeline())
                                    .commits(new CommitTimes(capacity)));
                    compiled = measurable ? jit.getTotalCompilationTime() - before : -1;
                    rounds.add(compiled);
                }
                seconds += round;
            } while (measurable
                    && compiled >= WARM_UP_QUIET_COMPILE_MILLIS
                    && seconds + round <= producerWarmUpMaxSeconds());
        }
        System.out.println(name + ": producers warmed up for " + seconds + " s in rounds of " + round + " s"
                + (measurable ? "; the JIT compiled for " + rounds + " ms in them" : " (JIT time not measurable)"));
    }

    /** Q1: how long the second transaction of a pair goes on after its {@code record}, before it commits. */
    static final int QUIET_COMMIT_DELAY_MILLIS = 20;

    /**
     * Q1 (not a default scenario): sparse traffic whose recordings skip their NOTIFY. Once a second
     * two transactions record an event each, the second right after the first, so within the
     * producers' notify interval: it sends no NOTIFY. The first commits; the second commits
     * {@value #QUIET_COMMIT_DELAY_MILLIS} ms later, after the pass the first one's NOTIFY started, and
     * no later NOTIFY comes for it until the next pair. Reports commit→handler start of the notifying
     * and of the quiet events apart ({@code liveSeconds} pairs, LISTEN/NOTIFY, relay sleep 1 s), and the
     * relay's CPU per pair from the first pair until all are completed (its start left out).
     */
    private void quietRecordings() throws Exception {
        try (Schema schema = Schema.create(pg);
                Topology topology = Topology.jobRoute(schema, rabbit, workDir);
                Processes p = Processes.start(this, schema, topology, false)) {
            Outbox outbox = Outbox.builder()
                    .tables(schema.tables)
                    .notifyInterval(notifyInterval)
                    .build();
            int pairs = scale.liveSeconds;
            CommitTimes commits = new CommitTimes(2 * pairs);
            double relayCpuBefore = p.relayCpuSecondsNow();
            long start = System.nanoTime();
            for (int i = 0; i < pairs; i++) {
                java.util.concurrent.locks.LockSupport.parkNanos(start + i * 1_000_000_000L - System.nanoTime());
                try (java.sql.Connection first = schema.dataSource.getConnection();
                        java.sql.Connection second = schema.dataSource.getConnection()) {
                    first.setAutoCommit(false);
                    second.setAutoCommit(false);
                    BenchEvent notifying = BenchEvent.next(2L * i);
                    BenchEvent quiet = BenchEvent.next(2L * i + 1);
                    outbox.record(DSL.using(first, SQLDialect.POSTGRES), notifying);
                    outbox.record(DSL.using(second, SQLDialect.POSTGRES), quiet);
                    commits.set(notifying.sequence(), notifying.recordedAtMicros(), BenchEvent.nowMicros());
                    first.commit();
                    Thread.sleep(QUIET_COMMIT_DELAY_MILLIS);
                    commits.set(quiet.sequence(), quiet.recordedAtMicros(), BenchEvent.nowMicros());
                    second.commit();
                }
            }
            long recorded = 2L * pairs;
            awaitCompleted(schema, recorded, Duration.ofSeconds(60));
            // the relay's cost of sparse traffic, without its start: the passes and the looks between them
            double relayCpu = p.relayCpuSecondsNow() - relayCpuBefore;
            p.sample();
            p.stopWorker();
            BenchWorker.Handled read = BenchWorker.readLatencies(topology.latencyFile);
            long[] fromCommit = commits.fromCommitMicros(read.sequences(), read.fromMadeMicros());
            List<Long> notifying = new ArrayList<>();
            List<Long> quiet = new ArrayList<>();
            for (int i = 0; i < fromCommit.length; i++) {
                (read.sequences()[i] % 2 == 0 ? notifying : quiet).add(fromCommit[i]);
            }
            latencyColumns(
                    "Q1",
                    "notifying: commit→handler start",
                    Stats.sorted(notifying.stream().mapToLong(Long::longValue).toArray()));
            latencyColumns(
                    "Q1",
                    "quiet, committed " + QUIET_COMMIT_DELAY_MILLIS + " ms later: commit→handler start",
                    Stats.sorted(quiet.stream().mapToLong(Long::longValue).toArray()));
            put("Q1", "relay CPU ms per pair, from the first pair until all completed", relayCpu * 1000 / pairs);
            p.report("Q1", recorded);
            verifyExactlyOnce(schema, recorded);
        }
    }

    /** S4 also gives its p99 without the events handled in this many first seconds (at the offered rate). */
    static final int WARM_UP_SECONDS = 10;

    /** P1's offered load: 4 producers, one event per transaction, this many events per second in all. */
    static final int PURGE_LOAD_RATE = 250;

    /**
     * P1: retention beside S2's producers at a fixed offered rate ({@value #PURGE_LOAD_RATE}/s, so that
     * every phase offers the same load). Seeds {@code purgeRows} completed deliveries (and their events)
     * ten days old; runs the 4 producers, the relay and the worker for {@code liveSeconds} without a
     * purge, then while {@code OutboxAdmin.purge} (completed older than 1 day, batches of 1,000)
     * deletes the seeded rows, then {@code liveSeconds} without a purge again. Reports the purge's
     * rows/s, the longest producer transaction of each phase (record + commit: it bounds any lock wait
     * a producer saw) and commit→completed of the events recorded in each phase. Checks that every
     * live delivery was completed and exactly the seeded rows are gone.
     */
    private void purgeBesideLiveProducers() throws Exception {
        try (Schema schema = Schema.create(pg);
                Topology topology = Topology.jobRoute(schema, rabbit, workDir);
                Processes p = Processes.start(this, schema, topology, false)) {
            long seedStart = System.nanoTime();
            schema.seedCompleted(scale.purgeRows);
            System.out.printf(
                    "P1: seeded %,d completed deliveries in %.1f s%n",
                    scale.purgeRows, (System.nanoTime() - seedStart) / 1e9);
            java.time.Instant beforeFrom = java.time.Instant.now();
            java.util.concurrent.atomic.LongAccumulator longestBefore =
                    new java.util.concurrent.atomic.LongAccumulator(Math::max, 0);
            long before = produce(
                    schema, Production.of(4, scale.liveSeconds, PURGE_LOAD_RATE).longest(longestBefore));
            java.time.Instant purgeFrom = java.time.Instant.now();
            dev.outbox.admin.OutboxAdmin admin = dev.outbox.admin.OutboxAdmin.of(schema.dataSource, schema.tables);
            ExecutorService purger = Executors.newSingleThreadExecutor();
            Future<dev.outbox.admin.PurgeResult> purge = purger.submit(
                    () -> admin.purge(dev.outbox.admin.Retention.of().completed(Duration.ofDays(1)), false));
            java.util.concurrent.atomic.LongAccumulator longestPurging =
                    new java.util.concurrent.atomic.LongAccumulator(Math::max, 0);
            long purging = 0;
            do {
                purging += produce(schema, Production.of(4, 2, PURGE_LOAD_RATE).longest(longestPurging));
            } while (!purge.isDone());
            java.time.Instant purgeTo = java.time.Instant.now();
            dev.outbox.admin.PurgeResult result = purge.get();
            purger.shutdown();
            java.util.concurrent.atomic.LongAccumulator longestAfter =
                    new java.util.concurrent.atomic.LongAccumulator(Math::max, 0);
            long after = produce(
                    schema, Production.of(4, scale.liveSeconds, PURGE_LOAD_RATE).longest(longestAfter));
            java.time.Instant afterTo = java.time.Instant.now();
            long live = before + purging + after;
            awaitCompleted(schema, live, Duration.ofMinutes(5));
            long left = schema.dsl().fetchCount(OUTBOX_DELIVERIES);
            if (result.completed() != scale.purgeRows || result.events() != scale.purgeRows || left != live) {
                throw new IllegalStateException("P1: purged " + result.completed() + " deliveries and "
                        + result.events() + " events of " + scale.purgeRows + " seeded, " + left
                        + " deliveries left for " + live + " live events");
            }
            double seconds = result.took().toNanos() / 1e9;
            put("P1", "purge rows/s (deliveries + events)", result.total() / seconds);
            put("P1", "purge s for " + scale.purgeRows + " deliveries and their events", seconds);
            put("P1", "events/s offered", PURGE_LOAD_RATE);
            put(
                    "P1",
                    "events/s recorded, before the purge",
                    before / (double) Duration.between(beforeFrom, purgeFrom).toMillis() * 1000);
            put(
                    "P1",
                    "events/s recorded, during the purge",
                    purging / (double) Duration.between(purgeFrom, purgeTo).toMillis() * 1000);
            put(
                    "P1",
                    "events/s recorded, after the purge",
                    after / (double) Duration.between(purgeTo, afterTo).toMillis() * 1000);
            put("P1", "longest producer transaction ms, before the purge", longestBefore.get() / 1e6);
            put("P1", "longest producer transaction ms, during the purge", longestPurging.get() / 1e6);
            put("P1", "longest producer transaction ms, after the purge", longestAfter.get() / 1e6);
            latencyColumns(
                    "P1",
                    "before the purge: commit→completed",
                    Stats.sorted(schema.completionLatenciesMicros(beforeFrom, purgeFrom)));
            latencyColumns(
                    "P1",
                    "during the purge: commit→completed",
                    Stats.sorted(schema.completionLatenciesMicros(purgeFrom, purgeTo)));
            latencyColumns(
                    "P1",
                    "after the purge: commit→completed",
                    Stats.sorted(schema.completionLatenciesMicros(purgeTo, afterTo)));
            p.sample();
            p.report("P1", live);
        }
    }

    /** S5: recording alone, 4 threads, 100 events per transaction through the batch API. */
    private void recordingAlone() throws Exception {
        try (Schema schema = Schema.create(pg)) {
            Outbox outbox = Outbox.builder().tables(schema.tables).build();
            AtomicLong events = new AtomicLong();
            long deadline =
                    System.nanoTime() + Duration.ofSeconds(scale.recordSeconds).toNanos();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> futures = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < 4; t++) {
                futures.add(pool.submit(() -> {
                    DSLContext dsl = DSL.using(schema.dataSource, SQLDialect.POSTGRES);
                    long seq = 0;
                    while (System.nanoTime() < deadline) {
                        List<BenchEvent> batch = new ArrayList<>(100);
                        for (int i = 0; i < 100; i++) {
                            batch.add(BenchEvent.next(seq++));
                        }
                        dsl.transaction(tx -> outbox.recordAll(tx.dsl(), batch));
                        events.addAndGet(100);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            pool.shutdown();
            long stored = schema.dsl().fetchCount(OUTBOX_EVENTS);
            if (stored != events.get()) {
                throw new IllegalStateException("S5 lost events: recorded " + events.get() + ", stored " + stored);
            }
            put("S5", "events/s", events.get() / seconds);
        }
    }

    /** R1 (diagnostic): the S2 producers alone, no relay or worker running; R1-QUIET: the same without NOTIFY. */
    private void recordingOneByOne(boolean notifications) throws Exception {
        try (Schema schema = Schema.create(pg)) {
            long cpuBefore = processCpuNanos();
            long recorded =
                    produce(schema, Production.of(4, scale.producerSeconds, 0).notifications(notifications));
            putProducers(
                    !notifications ? "R1-QUIET" : notifyInterval.isZero() ? "R1-EVERY" : "R1", recorded, cpuBefore);
        }
    }

    // ---------------------------------------------------------------- the reference pipeline (Reference)

    static final String R1_METRIC = "events/s, 4 threads, one event per transaction, nothing else running";
    /** S1's relay and worker after half the backlog completed: their start and most of their compilation are behind them. */
    static final String RELAY_SECOND_HALF_CPU = "relay CPU s per 100,000 events, second half of the drain";

    static final String WORKER_SECOND_HALF_CPU = "worker CPU s per 100,000 events, second half of the drain";
    /** The producers' JVM (this one, which runs nothing else meanwhile): CPU seconds per 100,000 events. */
    static final String PRODUCER_CPU_METRIC = "producers' CPU s per 100,000 events (the bench JVM)";

    /** REF-S1: the hand-written pipeline drains the same backlog as S1. */
    private void referenceBacklogDrain() throws Exception {
        try (Schema schema = Schema.create(pg)) {
            recordBacklog(schema, scale.backlog);
            long cpuBefore = processCpuNanos();
            try (Reference ref =
                    Reference.start(pg, rabbit.connectionFactory(), schema.name, "bench-ref-" + schema.name)) {
                ref.awaitCompleted(scale.backlog, Duration.ofMinutes(10));
            }
            double cpu = (processCpuNanos() - cpuBefore) / 1e9;
            put("REF-S1", "events/s (backlog " + scale.backlog + ")", schema.drainRate());
            put("REF-S1", "pipeline CPU s per 100,000 events (one JVM)", cpu * 100_000 / scale.backlog);
            verifyExactlyOnce(schema, scale.backlog);
        }
    }

    /** The CPU figure of REF-S1-FRESH: its whole JVM's, its start included, as relay's and worker's are. */
    static final String FRESH_REFERENCE_CPU_METRIC = "pipeline CPU s per 100,000 events (its JVM, start included)";

    /**
     * REF-S1-FRESH: REF-S1 in a JVM of its own ({@link FreshReference}), started for the run after the
     * backlog is recorded, with the JVM options of relay and worker: as cold as they are, where REF-S1
     * runs in this JVM, warm from the runs and ceilings before it.
     */
    private void freshReferenceBacklogDrain() throws Exception {
        String name = "REF-S1-FRESH";
        try (Schema schema = Schema.create(pg)) {
            recordBacklog(schema, scale.backlog);
            Map<String, String> env = new LinkedHashMap<>();
            env.put(TestPostgres.URL_ENV, BackendCpu.withClient(pg.jdbcUrl(), "reference"));
            env.put(TestPostgres.USER_ENV, pg.user());
            env.put(TestPostgres.PASSWORD_ENV, pg.password());
            env.put(TestRabbit.URI_ENV, rabbit.uri());
            double cpu;
            BackendCpu backends;
            try (ChildProcess reference = ChildProcess.start(
                    "reference-" + schema.name,
                    FRESH_REFERENCE_MAIN,
                    List.of(schema.name, "bench-ref-" + schema.name, String.valueOf(scale.backlog)),
                    env,
                    workDir,
                    serviceJvmOptions("reference-" + schema.name))) {
                try (Sampler sampler = new Sampler(pg, List.of(reference))) {
                    backends = sampler.backends();
                    int exit = reference.awaitExit(FreshReference.TIMEOUT.plusMinutes(1));
                    String log = Files.readString(reference.log());
                    if (exit != 0) {
                        throw new IllegalStateException("the reference in a JVM of its own exited with " + exit
                                + ", see " + reference.log() + ":\n" + log);
                    }
                    cpu = FreshReference.cpuSeconds(log);
                }
                put(name, "peak RSS MB", reference.peakRssMb());
            }
            put(name, "events/s (backlog " + scale.backlog + ")", schema.drainRate());
            put(name, FRESH_REFERENCE_CPU_METRIC, cpu * 100_000 / scale.backlog);
            if (backends.seen("reference")) { // a reference that connected and ended between two samples is not found
                backends.seconds("reference")
                        .ifPresent(seconds ->
                                put(name, BackendCpu.metric("reference"), seconds * 100_000 / scale.backlog));
            }
            verifyExactlyOnce(schema, scale.backlog);
        }
    }

    /** REF-S2: the hand-written pipeline with 4 plain-JDBC producers, one event per transaction. */
    private void referenceLiveProducers() throws Exception {
        try (Schema schema = Schema.create(pg);
                Reference ref =
                        Reference.start(pg, rabbit.connectionFactory(), schema.name, "bench-ref-" + schema.name)) {
            long recorded = Reference.produce(pg, schema.name, 4, scale.liveSeconds, ref);
            ref.awaitCompleted(recorded, Duration.ofMinutes(5));
            put("REF-S2", "events/s", recorded / (double) scale.liveSeconds);
            completionColumns("REF-S2", schema);
            verifyExactlyOnce(schema, recorded);
        }
    }

    /**
     * REF-R1: the R1 producers' rows inserted with plain JDBC, no NOTIFY, nothing else running, in
     * auto-commit mode; REF-R1-TX: the same, each insert in a transaction the producer begins and commits.
     */
    private void referenceRecording(String name, boolean explicitTransactions) throws Exception {
        try (Schema schema = Schema.create(pg)) {
            long cpuBefore = processCpuNanos();
            long recorded = Reference.produce(pg, schema.name, 4, scale.producerSeconds, null, explicitTransactions);
            putProducers(name, recorded, cpuBefore);
            long stored = schema.dsl().fetchCount(OUTBOX_EVENTS);
            if (stored != recorded) {
                throw new IllegalStateException(name + " lost events: recorded " + recorded + ", stored " + stored);
            }
        }
    }

    /** R1's figures of {@code name}: the producers' rate, and this JVM's CPU since {@code cpuBefore} per 100,000 events. */
    private void putProducers(String name, long recorded, long cpuBefore) {
        double cpu = (processCpuNanos() - cpuBefore) / 1e9;
        put(name, R1_METRIC, recorded / (double) scale.producerSeconds);
        put(name, PRODUCER_CPU_METRIC, recorded == 0 ? Double.NaN : cpu * 100_000 / recorded);
    }

    /** This JVM's CPU time so far, in nanoseconds. */
    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    // ---------------------------------------------------------------- helpers

    /** The relay's JVM options: its own ({@link #RELAY_JVM}, or {@code --relay-jvm}), then those of every service. */
    List<String> relayJvmOptions(String name) {
        List<String> options = new ArrayList<>(relayJvm);
        options.addAll(serviceJvmOptions(name));
        return options;
    }

    /**
     * The JVM options of a child process (relay or worker): a flight recording to {@code <jfrDir>/<name>.jfr}
     * when asked for, then the options of {@code --service-jvm}.
     */
    List<String> serviceJvmOptions(String name) {
        List<String> options = new ArrayList<>();
        if (jfrDir != null) {
            options.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
                    + jfrDir.resolve(name + ".jfr"));
        }
        options.addAll(serviceJvm);
        return options;
    }

    private void recordBacklog(Schema schema, int count) {
        Outbox outbox =
                Outbox.builder().tables(schema.tables).notifications(false).build();
        DSLContext dsl = DSL.using(schema.dataSource, SQLDialect.POSTGRES);
        for (int from = 0; from < count; from += 1_000) {
            List<BenchEvent> batch = new ArrayList<>();
            for (int i = from; i < Math.min(count, from + 1_000); i++) {
                batch.add(BenchEvent.next(i));
            }
            dsl.transaction(tx -> outbox.recordAll(tx.dsl(), batch));
        }
        schema.analyze();
    }

    /**
     * A run of producers: {@code threads} of them for {@code seconds}, each recording one event per
     * transaction, {@code rate} events/s in all (0: as fast as they can); what else it measures is
     * set on it.
     */
    private static final class Production {
        final int threads;
        final int seconds;
        final int rate;
        boolean notifications = true;
        int keys;
        java.util.concurrent.atomic.@org.jspecify.annotations.Nullable LongAccumulator longest;

        @org.jspecify.annotations.Nullable
        TransactionTimeline transactions;

        @org.jspecify.annotations.Nullable
        CommitTimes commits;

        private Production(int threads, int seconds, int rate) {
            this.threads = threads;
            this.seconds = seconds;
            this.rate = rate;
        }

        static Production of(int threads, int seconds, int rate) {
            return new Production(threads, seconds, rate);
        }

        /** Each event gets one of {@code keys} ordering keys in turn (0: none, the default). */
        Production keys(int keys) {
            this.keys = keys;
            return this;
        }

        /** With false, the producers' outbox sends no NOTIFY. */
        Production notifications(boolean notifications) {
            this.notifications = notifications;
            return this;
        }

        /** Also the longest producer transaction (record and commit), in nanoseconds. */
        Production longest(java.util.concurrent.atomic.LongAccumulator longest) {
            this.longest = longest;
            return this;
        }

        /** Also each transaction's duration by the second it began in (none with null). */
        Production transactions(@org.jspecify.annotations.Nullable TransactionTimeline transactions) {
            this.transactions = transactions;
            return this;
        }

        /** Also when each event's transaction came to its commit. */
        Production commits(CommitTimes commits) {
            this.commits = commits;
            return this;
        }
    }

    private long produce(Schema schema, Production production) throws Exception {
        int threads = production.threads;
        int rate = production.rate;
        var longest = production.longest;
        TransactionTimeline transactions = production.transactions;
        CommitTimes commits = production.commits;
        Outbox.Builder builder = Outbox.builder()
                .tables(schema.tables)
                .notifications(production.notifications)
                .notifyInterval(notifyInterval);
        PrometheusMeterRegistry registry = metrics ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) : null;
        java.util.concurrent.ScheduledExecutorService scraper =
                registry == null ? null : Executors.newSingleThreadScheduledExecutor();
        if (registry != null) {
            builder.meterRegistry(registry);
            // the scrape only loads the registry as Prometheus would; its result is not needed
            var unused = scraper.scheduleAtFixedRate(
                    registry::scrape, SCRAPE_SECONDS, SCRAPE_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        }
        Outbox outbox = builder.build();
        AtomicLong recorded = new AtomicLong();
        long start = System.nanoTime();
        long end = start + Duration.ofSeconds(production.seconds).toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                DSLContext dsl = DSL.using(schema.dataSource, SQLDialect.POSTGRES);
                long seq = thread;
                long n = 0;
                while (true) {
                    long now = System.nanoTime();
                    if (now >= end) {
                        break;
                    }
                    if (rate > 0) {
                        long due = start + (long) (n * 1e9 * threads / rate);
                        if (due > now) {
                            java.util.concurrent.locks.LockSupport.parkNanos(due - now);
                            continue;
                        }
                    }
                    BenchEvent event = BenchEvent.next(seq);
                    Object recording = production.keys > 0
                            ? NewEvent.of(event).withOrderingKey("key-" + seq % production.keys)
                            : event;
                    long txStart = System.nanoTime();
                    dsl.transaction(tx -> {
                        outbox.record(tx.dsl(), recording);
                        if (commits != null) { // what is left is the COMMIT
                            commits.set(event.sequence(), event.recordedAtMicros(), BenchEvent.nowMicros());
                        }
                    });
                    long txNanos = System.nanoTime() - txStart;
                    if (longest != null) {
                        longest.accumulate(txNanos);
                    }
                    if (transactions != null) {
                        transactions.add(txStart - start, txNanos);
                    }
                    seq += threads;
                    n++;
                    recorded.incrementAndGet();
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        if (scraper != null) {
            scraper.shutdownNow();
        }
        return recorded.get();
    }

    /**
     * Waits until at least {@code atLeast} deliveries are completed and returns how many are, counted
     * every 250 ms (a count of up to half the backlog, a few dozen times per drain).
     */
    private static long awaitCompletedAtLeast(Schema schema, long atLeast, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            long completed = schema.dsl()
                    .fetchCount(
                            OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(DSL.inline(OutboxDeliveryStatus.completed)));
            if (completed >= atLeast) {
                return completed;
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("fewer than " + atLeast + " deliveries completed within " + timeout);
    }

    private static void awaitCompleted(Schema schema, long expected, Duration timeout) throws InterruptedException {
        if (!tryAwaitCompleted(schema, expected, timeout)) {
            throw new IllegalStateException("only "
                    + schema.dsl()
                            .fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.completed))
                    + " of " + expected + " deliveries completed within " + timeout);
        }
    }

    /**
     * Polls every 100 ms whether anything is still in flight (unrouted events, pending or dispatched
     * deliveries: three probes of partial indexes, the statuses inlined so that a generic plan cannot miss them), and counts the completed deliveries only once
     * nothing is: counting 100,000 rows ten times a second cost the database a third of a core in S1.
     */
    private static boolean tryAwaitCompleted(Schema schema, long expected, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        DSLContext dsl = schema.dsl();
        while (System.nanoTime() < deadline) {
            boolean inFlight = dsl.fetchExists(OUTBOX_EVENTS, OUTBOX_EVENTS.ROUTED_AT.isNull())
                    || dsl.fetchExists(
                            OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(DSL.inline(OutboxDeliveryStatus.pending)))
                    || dsl.fetchExists(
                            OUTBOX_DELIVERIES,
                            OUTBOX_DELIVERIES.STATUS.eq(DSL.inline(OutboxDeliveryStatus.dispatched)));
            if (!inFlight
                    && dsl.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.completed))
                            >= expected) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    /** Every recorded event is stored (the pipeline did not finish: nothing more can be checked). */
    private static void verifyNoEventLost(Schema schema, long events) {
        long stored = schema.dsl().fetchCount(OUTBOX_EVENTS);
        if (stored != events) {
            throw new IllegalStateException(
                    "correctness check failed: events recorded " + events + ", stored " + stored);
        }
    }

    /** Every recorded event is stored with its one delivery, and no delivery was dispatched twice (some may still wait). */
    private static void verifyNoEventLostNorRedispatched(Schema schema, long events) {
        verifyNoEventLost(schema, events);
        DSLContext dsl = schema.dsl();
        long deliveries = dsl.fetchCount(OUTBOX_DELIVERIES);
        long redispatched = dsl.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.ATTEMPTS.gt(1));
        if (deliveries > events || redispatched != 0) {
            throw new IllegalStateException("correctness check failed: events recorded " + events + ", deliveries "
                    + deliveries + ", dispatched more than once " + redispatched);
        }
    }

    /**
     * Every recorded event stored and routed to exactly one delivery, every delivery completed (a
     * delivery row is completed once at most, by its guarded transition). A delivery dispatched more
     * than once (a timeout under overload) is at-least-once at work, not a loss: it is counted, and
     * must be zero in a run that kept up.
     */
    private static void verifyExactlyOnce(Schema schema, long events) {
        DSLContext dsl = schema.dsl();
        long storedEvents = dsl.fetchCount(OUTBOX_EVENTS);
        long deliveries = dsl.fetchCount(OUTBOX_DELIVERIES);
        long completed = dsl.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.completed));
        long redispatched = dsl.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.ATTEMPTS.gt(1));
        if (storedEvents != events || deliveries != events || completed != events || redispatched != 0) {
            throw new IllegalStateException(
                    "correctness check failed: events recorded " + events + ", stored " + storedEvents + ", deliveries "
                            + deliveries + ", completed " + completed + ", dispatched more than once " + redispatched);
        }
    }

    private void latencyColumns(String scenario, String what, long[] sortedMicros) {
        put(scenario, what + " p50 ms", Stats.percentile(sortedMicros, 50) / 1000.0);
        put(scenario, what + " p95 ms", Stats.percentile(sortedMicros, 95) / 1000.0);
        put(scenario, what + " p99 ms", Stats.percentile(sortedMicros, 99) / 1000.0);
        put(scenario, what + " max ms", Stats.percentile(sortedMicros, 100) / 1000.0);
    }

    void put(String scenario, String metric, double value) {
        results.computeIfAbsent(scenario, k -> new LinkedHashMap<>())
                .computeIfAbsent(metric, k -> new ArrayList<>())
                .add(value);
    }

    void print() {
        System.out.println();
        System.out.println("| scenario | metric | median (min–max) | runs |");
        System.out.println("|---|---|---|---|");
        results.forEach((scenario, metrics) -> metrics.forEach((metric, values) -> System.out.printf(
                "| %s | %s | %s | %d |%n",
                scenario,
                metric,
                Stats.summary(values, values.stream().allMatch(v -> v >= 100) ? 0 : 1),
                values.size())));
        printTargets();
    }

    /** The targets of issue 11, from the medians of this run: each scenario's ratio to its reference, met or missed. */
    void printTargets() {
        String backlog = "events/s (backlog " + scale.backlog + ")";
        System.out.println();
        System.out.println("| target | measured (medians) | met? |");
        System.out.println("|---|---|---|");
        ratioTarget("S1 ≥ 0.8 × REF-S1", "S1", "REF-S1", backlog, 0.8);
        ratioTarget(
                "S1 ≥ 0.8 × REF-S1-FRESH (the reference started cold in a JVM of its own, as relay and worker are)",
                "S1",
                "REF-S1-FRESH",
                backlog,
                0.8);
        ratioTarget("S2 ≥ 0.75 × REF-S2", "S2", "REF-S2", "events/s", 0.75);
        atMost("S2 commit→completed p99 ≤ 500 ms", "S2", "commit→completed p99 ms", 500);
        ratioTarget("S2-ORDERED ≥ 0.7 × S2 (ordered route, 1,000 keys)", "S2-ORDERED", "S2", "events/s", 0.7);
        ratioTarget("S2-EVERY ≥ 0.75 × REF-S2 (a NOTIFY per recording)", "S2-EVERY", "REF-S2", "events/s", 0.75);
        atMost("S2-EVERY commit→completed p99 ≤ 500 ms", "S2-EVERY", "commit→completed p99 ms", 500);
        ratioTarget("S3 ≥ 1.0 × REF-S2", "S3", "REF-S2", "events/s", 1.0);
        atMost("S3 commit→consumed p99 ≤ 500 ms", "S3", "commit→consumed p99 ms", 500);
        for (String s4 : List.of("S4 LISTEN/NOTIFY", "S4 poll-only", "S4-EVERY LISTEN/NOTIFY")) {
            Double offered = median(s4, "events/s offered");
            Double recorded = median(s4, "events/s recorded");
            if (offered != null && recorded != null) {
                target(
                        s4 + " records what is offered",
                        String.format("%.0f of %.0f events/s", recorded, offered),
                        recorded >= 0.99 * offered);
            }
        }
        atMost(
                "S4 LISTEN/NOTIFY commit→handler start p99 ≤ 50 ms",
                "S4 LISTEN/NOTIFY",
                "commit→handler start p99 ms",
                50);
        atMost(
                "S4-EVERY LISTEN/NOTIFY commit→handler start p99 ≤ 50 ms",
                "S4-EVERY LISTEN/NOTIFY",
                "commit→handler start p99 ms",
                50);
        atMost(
                "S4 poll-only commit→handler start p99 ≤ the sleep + 100 ms",
                "S4 poll-only",
                "commit→handler start p99 ms",
                RELAY_SLEEP_SECONDS * 1000 + 100);
        ratioTarget("R1 ≥ 0.9 × REF-R1", "R1", "REF-R1", R1_METRIC, 0.9);
        ratioTarget("R1-EVERY ≥ 0.9 × REF-R1 (a NOTIFY per recording)", "R1-EVERY", "REF-R1", R1_METRIC, 0.9);
        ratioTarget("R1 ≥ 0.9 × REF-R1-TX (the reference in explicit transactions)", "R1", "REF-R1-TX", R1_METRIC, 0.9);
        Double relayCpu = median("S1", RELAY_SECOND_HALF_CPU);
        Double workerCpu = median("S1", WORKER_SECOND_HALF_CPU);
        if (relayCpu != null && workerCpu != null) {
            target(
                    "S1 worker CPU per event ≤ the relay's (second half of the drain)",
                    String.format("%.1f / %.1f s per 100,000 = %.2f", workerCpu, relayCpu, workerCpu / relayCpu),
                    workerCpu <= relayCpu);
        }
        Double s5 = median("S5", "events/s");
        if (s5 != null) {
            target("S5 ≥ 30,000 events/s", String.format("%.0f events/s", s5), s5 >= 30_000);
        }
        for (String who : List.of("relay", "worker")) {
            double peak = results.values().stream()
                    .flatMap(m -> m.entrySet().stream())
                    .filter(e -> e.getKey().equals(who + " peak RSS MB"))
                    .flatMap(e -> e.getValue().stream())
                    .mapToDouble(Double::doubleValue)
                    .max()
                    .orElse(Double.NaN);
            if (!Double.isNaN(peak)) {
                target(who + " peak RSS ≤ 256 MB (max of every run)", String.format("%.0f MB", peak), peak <= 256);
            }
        }
    }

    private void ratioTarget(String target, String scenario, String reference, String metric, double atLeast) {
        Double value = median(scenario, metric);
        Double ref = median(reference, metric);
        if (value != null && ref != null) {
            target(
                    target,
                    String.format("%.0f / %.0f events/s = %.2f", value, ref, value / ref),
                    value / ref >= atLeast);
        }
    }

    private void atMost(String target, String scenario, String metric, double limit) {
        Double value = median(scenario, metric);
        if (value != null) {
            target(target, String.format("%.0f ms", value), value <= limit);
        }
    }

    private static void target(String target, String measured, boolean met) {
        System.out.printf("| %s | %s | %s |%n", target, measured, met ? "yes" : "**no**");
    }

    private @org.jspecify.annotations.Nullable Double median(String scenario, String metric) {
        List<Double> values = results.getOrDefault(scenario, Map.of()).get(metric);
        return values == null || values.isEmpty() ? null : Stats.median(values);
    }

    static String shortId() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    private static String memory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024 / 1024 + " GiB";
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return "? GiB";
    }

    // ---------------------------------------------------------------- resources

    /** A fresh migrated schema, dropped afterwards. */
    static final class Schema implements AutoCloseable {
        final String name;
        final OutboxTables tables;
        final HikariDataSource dataSource;
        private final TestPostgres pg;
        /** Whether closing drops the schema ({@link #newConnections} does not own it). */
        private final boolean owner;

        private Schema(TestPostgres pg, String name, boolean owner) {
            this.pg = pg;
            this.name = name;
            this.owner = owner;
            this.tables = OutboxTables.defaults().withSchema(name);
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(pg.jdbcUrl());
            config.setUsername(pg.user());
            config.setPassword(pg.password());
            config.setMaximumPoolSize(8);
            config.setPoolName("bench-" + name);
            config.addDataSourceProperty(
                    "ApplicationName", BackendCpu.client("producers")); // the benchmark's own checks too
            this.dataSource = new HikariDataSource(config);
        }

        static Schema create(TestPostgres pg) {
            Schema s = new Schema(pg, "bench_" + shortId(), true);
            OutboxMigrations.migrate(s.dataSource, s.tables);
            return s;
        }

        /** The same tables through a pool of new connections; closing it closes that pool and leaves the schema. */
        Schema newConnections() {
            return new Schema(pg, name, false);
        }

        DSLContext dsl() {
            return OutboxDsl.mapped(DSL.using(dataSource, SQLDialect.POSTGRES), tables);
        }

        void analyze() {
            try (java.sql.Connection c = dataSource.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("ANALYZE " + name + ".outbox_events");
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        /** Deliveries per second from the first delivery created to the last completed. */
        double drainRate() {
            Record2<Integer, Double> r = dsl().select(
                            DSL.count(),
                            DSL.field(DSL.extract(DSL.max(OUTBOX_DELIVERIES.COMPLETED_AT), org.jooq.DatePart.EPOCH)
                                            .minus(DSL.extract(
                                                    DSL.min(OUTBOX_DELIVERIES.CREATED_AT), org.jooq.DatePart.EPOCH)))
                                    .cast(Double.class))
                    .from(OUTBOX_DELIVERIES)
                    .fetchOne();
            return r.value1() / r.value2();
        }

        /** Commit→completed of the events recorded in [from, to). */
        long[] completionLatenciesMicros(java.time.Instant from, java.time.Instant to) {
            return dsl()
                    .select(DSL.extract(OUTBOX_DELIVERIES.COMPLETED_AT, org.jooq.DatePart.EPOCH)
                            .minus(DSL.extract(OUTBOX_EVENTS.CREATED_AT, org.jooq.DatePart.EPOCH))
                            .mul(1_000_000)
                            .cast(Long.class))
                    .from(OUTBOX_DELIVERIES)
                    .join(OUTBOX_EVENTS)
                    .on(OUTBOX_EVENTS.ID.eq(OUTBOX_DELIVERIES.EVENT_ID))
                    .where(OUTBOX_EVENTS.CREATED_AT.ge(from.atOffset(java.time.ZoneOffset.UTC)))
                    .and(OUTBOX_EVENTS.CREATED_AT.lt(to.atOffset(java.time.ZoneOffset.UTC)))
                    .fetch()
                    .stream()
                    .mapToLong(r -> r.value1())
                    .toArray();
        }

        /** {@code rows} routed events with one completed delivery each, ten days old, one millisecond apart; then VACUUM ANALYZE. */
        void seedCompleted(int rows) {
            try (java.sql.Connection c = dataSource.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("WITH e AS (INSERT INTO " + name
                        + ".outbox_events (id, event_type, payload, created_at, routed_at)"
                        + " SELECT gen_random_uuid(), 'bench.seeded', '{}'::jsonb, t, t FROM (SELECT now() - interval '10 days'"
                        + " + g * interval '1 millisecond' AS t FROM generate_series(1, " + rows
                        + ") g) times RETURNING id, created_at)"
                        + " INSERT INTO " + name
                        + ".outbox_deliveries (id, event_id, job_type, queue_name, retry_delays_seconds,"
                        + " delivery_timeout_seconds, status, attempts, dispatch_id, available_at, dispatched_at, completed_at, created_at,"
                        + " updated_at) SELECT gen_random_uuid(), id, 'seeded', 'seeded', '{}', 60, 'completed', 1, gen_random_uuid(),"
                        + " created_at, created_at, created_at, created_at, created_at FROM e");
                s.execute("VACUUM ANALYZE " + name + ".outbox_events");
                s.execute("VACUUM ANALYZE " + name + ".outbox_deliveries");
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        /** Commit→completed of every completed delivery, grouped by the second after the first event that its event was recorded in. */
        List<long[]> completionLatenciesBySecond() {
            var rows = dsl().select(
                            DSL.extract(OUTBOX_EVENTS.CREATED_AT, org.jooq.DatePart.EPOCH)
                                    .mul(1_000_000)
                                    .cast(Long.class),
                            DSL.extract(OUTBOX_DELIVERIES.COMPLETED_AT, org.jooq.DatePart.EPOCH)
                                    .minus(DSL.extract(OUTBOX_EVENTS.CREATED_AT, org.jooq.DatePart.EPOCH))
                                    .mul(1_000_000)
                                    .cast(Long.class))
                    .from(OUTBOX_DELIVERIES)
                    .join(OUTBOX_EVENTS)
                    .on(OUTBOX_EVENTS.ID.eq(OUTBOX_DELIVERIES.EVENT_ID))
                    .where(OUTBOX_DELIVERIES.COMPLETED_AT.isNotNull())
                    .orderBy(OUTBOX_EVENTS.CREATED_AT)
                    .fetch();
            List<List<Long>> bySecond = new ArrayList<>();
            long first = rows.isEmpty() ? 0 : rows.get(0).value1();
            for (var r : rows) {
                int sec = (int) ((r.value1() - first) / 1_000_000);
                while (bySecond.size() <= sec) {
                    bySecond.add(new ArrayList<>());
                }
                bySecond.get(sec).add(r.value2());
            }
            return bySecond.stream()
                    .map(l -> l.stream().mapToLong(Long::longValue).toArray())
                    .toList();
        }

        @Override
        public void close() throws java.sql.SQLException {
            dataSource.close();
            if (!owner) {
                return;
            }
            try (java.sql.Connection c = pg.connect();
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
            }
        }
    }

    /** The routes file and broker resources of one scenario. */
    static final class Topology implements AutoCloseable {
        final Path routesFile;
        final Path latencyFile;
        final String queue;
        final String consumerQueue;
        final String exchange;
        private final TestRabbit rabbit;

        private Topology(
                TestRabbit rabbit,
                Path routesFile,
                Path latencyFile,
                String queue,
                String exchange,
                String consumerQueue) {
            this.rabbit = rabbit;
            this.routesFile = routesFile;
            this.latencyFile = latencyFile;
            this.queue = queue;
            this.exchange = exchange;
            this.consumerQueue = consumerQueue;
        }

        static Topology jobRoute(Schema schema, TestRabbit rabbit, Path dir) throws IOException {
            return jobRoute(schema, rabbit, dir, false);
        }

        /** The job route, ordered per key (policy block) when {@code ordered}. */
        static Topology jobRoute(Schema schema, TestRabbit rabbit, Path dir, boolean ordered) throws IOException {
            String queue = "bench-" + schema.name;
            Path routes = dir.resolve(schema.name + "-routes.yaml");
            Files.writeString(
                    routes,
                    "routes:\n  bench.event:\n    - job: bench-job\n      queue: " + queue
                            + "\n      retryDelaysSeconds: [1, 5, 30]\n      deliveryTimeoutSeconds: 120\n"
                            + (ordered ? "      ordered: true\n" : ""));
            return new Topology(rabbit, routes, dir.resolve(schema.name + "-latencies.bin"), queue, "", "");
        }

        static Topology publishRoute(Schema schema, TestRabbit rabbit, Path dir) throws Exception {
            String exchange = "bench-x-" + schema.name;
            String queue = "bench-consumer-" + schema.name;
            try (Connection c = rabbit.connectionFactory().newConnection("outbox-bench-setup");
                    Channel ch = c.createChannel()) {
                ch.exchangeDeclare(exchange, "direct", true);
                ch.queueDeclare(queue, true, false, false, null);
                ch.queueBind(queue, exchange, "bench");
            }
            Path routes = dir.resolve(schema.name + "-routes.yaml");
            Files.writeString(
                    routes,
                    "routes:\n  bench.event:\n    - publish: bench-publish\n      exchange: " + exchange
                            + "\n      routingKey: bench\n      retryDelaysSeconds: [1, 5, 30]\n      deliveryTimeoutSeconds: 120\n");
            return new Topology(rabbit, routes, dir.resolve(schema.name + "-latencies.bin"), "", exchange, queue);
        }

        @Override
        public void close() throws IOException, java.util.concurrent.TimeoutException {
            try (Connection c = rabbit.connectionFactory().newConnection("outbox-bench-cleanup");
                    Channel ch = c.createChannel()) {
                if (!queue.isEmpty()) {
                    ch.queueDelete(queue);
                }
                if (!consumerQueue.isEmpty()) {
                    ch.queueDelete(consumerQueue);
                }
                if (!exchange.isEmpty()) {
                    ch.exchangeDelete(exchange);
                }
            }
            Files.deleteIfExists(routesFile);
            Files.deleteIfExists(latencyFile);
        }
    }

    /** The relay and (for job routes) the worker, each a process of its own. */
    static final class Processes implements AutoCloseable {
        private final Bench bench;
        private final ChildProcess relay;
        private final ChildProcess worker;
        private final Sampler sampler;
        private final AtomicLong scrapeFailures = new AtomicLong();
        private final BackendCpu backends;

        private Processes(Bench bench, ChildProcess relay, ChildProcess worker) {
            this.bench = bench;
            this.relay = relay;
            this.worker = worker;
            this.sampler = new Sampler(bench.pg, worker == null ? List.of(relay) : List.of(relay, worker));
            this.backends = sampler.backends();
        }

        static Processes start(Bench bench, Schema schema, Topology topology, boolean pollOnly) throws Exception {
            Map<String, String> env = new LinkedHashMap<>();
            env.put("OUTBOX_JDBC_URL", BackendCpu.withClient(bench.pg.jdbcUrl(), "worker"));
            env.put("OUTBOX_JDBC_USER", bench.pg.user());
            env.put("OUTBOX_JDBC_PASSWORD", bench.pg.password());
            env.put("OUTBOX_AMQP_URI", bench.rabbit.uri());
            env.put("OUTBOX_SCHEMA", schema.name);
            env.put("OUTBOX_ROUTES_FILE", topology.routesFile.toString());
            env.put("OUTBOX_POLL_ONLY", String.valueOf(pollOnly));
            env.put("BENCH_QUEUE", topology.queue);
            env.put("BENCH_LATENCY_FILE", topology.latencyFile.toString());
            int httpPort = 0;
            if (bench.metrics) {
                try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
                    httpPort = free.getLocalPort();
                }
                env.put("OUTBOX_HTTP_PORT", String.valueOf(httpPort));
                env.put("BENCH_METRICS", "true");
            }
            ChildProcess worker = topology.queue.isEmpty()
                    ? null
                    : ChildProcess.start(
                            "worker-" + schema.name,
                            WORKER_MAIN,
                            List.of(),
                            env,
                            bench.workDir,
                            bench.serviceJvmOptions("worker-" + schema.name));
            if (worker != null) {
                BenchWorker.awaitReady(worker.log(), Duration.ofSeconds(60));
            }
            Map<String, String> relayEnv = new LinkedHashMap<>(env);
            relayEnv.put("OUTBOX_JDBC_URL", BackendCpu.withClient(bench.pg.jdbcUrl(), "relay"));
            relayEnv.putAll(bench.relayEnv);
            ChildProcess relay = ChildProcess.start(
                    "relay-" + schema.name,
                    RELAY_MAIN,
                    List.of("relay", "--loop", "--sleep=" + RELAY_SLEEP_SECONDS),
                    relayEnv,
                    bench.workDir,
                    bench.relayJvmOptions("relay-" + schema.name));
            BenchWorker.awaitLine(relay.log(), "relay loop started", Duration.ofSeconds(60));
            if (worker != null) {
                // the relay's first pass declares the queue; the scenario starts once the worker consumes it
                BenchWorker.awaitLine(worker.log(), "consuming queue", Duration.ofSeconds(60));
            } else {
                Thread.sleep(1_000); // the first pass connects to the broker
            }
            if (bench.threads) {
                relay.countThreads();
                if (worker != null) {
                    worker.countThreads();
                }
            }
            Processes processes = new Processes(bench, relay, worker);
            if (httpPort != 0) {
                processes.scrape(httpPort);
            }
            return processes;
        }

        /** Scrapes the relay service's {@code /metrics} as Prometheus would, every {@link #SCRAPE_SECONDS}; a failed scrape fails the run. */
        void scrape(int port) {
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .build();
            sampler.every(Duration.ofSeconds(SCRAPE_SECONDS), () -> {
                try {
                    java.net.http.HttpResponse<String> response =
                            http.send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() != 200 || !response.body().contains("outbox_relay_events_routed_total")) {
                        scrapeFailures.incrementAndGet();
                    }
                } catch (IOException e) {
                    scrapeFailures.incrementAndGet();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }

        void sample() {
            sampler.sample();
        }

        /** The relay's CPU seconds so far, read now. */
        double relayCpuSecondsNow() {
            relay.sample();
            return relay.cpuSeconds();
        }

        /** The CPU seconds of relay and worker (0 without one) so far, read now. */
        double[] cpuSecondsNow() {
            relay.sample();
            if (worker != null) {
                worker.sample();
            }
            return new double[] {relay.cpuSeconds(), worker == null ? 0 : worker.cpuSeconds()};
        }

        /**
         * Relay's and worker's CPU per 100,000 events since {@code since} ({@link #cpuSecondsNow}), over the
         * {@code events} completed after it: the second half of a drain, with the JVMs' start and most of
         * their compilation behind them.
         */
        void reportSince(String scenario, double[] since, long events) {
            if (events <= 0) {
                return;
            }
            bench.put(scenario, RELAY_SECOND_HALF_CPU, (relay.cpuSeconds() - since[0]) * 100_000 / events);
            if (worker != null) {
                bench.put(scenario, WORKER_SECOND_HALF_CPU, (worker.cpuSeconds() - since[1]) * 100_000 / events);
            }
        }

        void stopWorker() throws InterruptedException {
            if (worker != null && worker.isAlive()) {
                worker.stop(60);
            }
        }

        /** Peak RSS and CPU of relay and worker, and their CPU per 100,000 of the scenario's {@code events}. */
        void report(String scenario, long events) {
            if (bench.threads) {
                for (ChildProcess process : worker == null ? List.of(relay) : List.of(relay, worker)) {
                    System.out.printf(
                            "%s %s CPU s by thread: %s%n",
                            scenario,
                            process == relay ? "relay" : "worker",
                            process.threadCpuSeconds().stream()
                                    .filter(t -> t.getValue() >= 0.05)
                                    .map(t -> String.format("%s %.1f", t.getKey(), t.getValue()))
                                    .collect(java.util.stream.Collectors.joining(", ")));
                }
            }
            bench.put(scenario, "relay peak RSS MB", relay.peakRssMb());
            bench.put(scenario, "relay CPU s", relay.cpuSeconds());
            bench.put(scenario, "relay CPU s per 100,000 events", relay.cpuSeconds() * 100_000 / events);
            if (worker != null) {
                bench.put(scenario, "worker peak RSS MB", worker.peakRssMb());
                bench.put(scenario, "worker CPU s", worker.cpuSeconds());
                bench.put(scenario, "worker CPU s per 100,000 events", worker.cpuSeconds() * 100_000 / events);
            }
            // the database's side: what serving each client cost PostgreSQL's backends
            for (String client :
                    worker == null ? List.of("relay", "producers") : List.of("relay", "worker", "producers")) {
                backends.seconds(client)
                        .ifPresent(
                                seconds -> bench.put(scenario, BackendCpu.metric(client), seconds * 100_000 / events));
            }
        }

        @Override
        public void close() throws IOException, java.sql.SQLException {
            int relayExit;
            int workerExit;
            sampler.close();
            try {
                relayExit = relay.stop(60);
                workerExit = worker == null ? 0 : (worker.isAlive() ? worker.stop(60) : 0);
            } catch (InterruptedException e) {
                relay.close();
                if (worker != null) {
                    worker.close();
                }
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while stopping the relay and the worker");
            }
            if (scrapeFailures.get() > 0) {
                throw new IllegalStateException(
                        scrapeFailures.get() + " scrapes of the relay's /metrics failed, see " + relay.log());
            }
            if (relayExit != 0) {
                throw new IllegalStateException("relay exited with " + relayExit + ", see " + relay.log());
            }
            if (workerExit != 0 && workerExit != 143) {
                throw new IllegalStateException("worker exited with " + workerExit + ", see " + worker.log());
            }
            if (bench.jfrDir != null) {
                JfrTop.print("relay", bench.jfrDir.resolve(relay.name() + ".jfr"), 25);
                if (worker != null) {
                    JfrTop.print("worker", bench.jfrDir.resolve(worker.name() + ".jfr"), 25);
                }
            }
        }
    }

    /** A plain RabbitMQ consumer of a publish route's queue, as another service would run it. */
    static final class PlainConsumer implements AutoCloseable {
        private final Connection connection;
        private final ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        private final AtomicLong count = new AtomicLong();
        private volatile long firstNanos;
        private volatile long lastNanos;

        private PlainConsumer(Connection connection) {
            this.connection = connection;
        }

        static PlainConsumer start(ConnectionFactory factory, String queue) throws Exception {
            PlainConsumer consumer = new PlainConsumer(factory.newConnection("outbox-bench-consumer"));
            Channel channel = consumer.connection.createChannel();
            channel.basicQos(2_000);
            com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
            channel.basicConsume(queue, false, new DefaultConsumer(channel) {
                @Override
                public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                        throws IOException {
                    java.time.Instant now = java.time.Instant.now();
                    long nowMicros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
                    long recorded = json.readTree(new String(body, StandardCharsets.UTF_8))
                            .get("recordedAtMicros")
                            .asLong();
                    consumer.latencies.add(nowMicros - recorded);
                    long t = System.nanoTime();
                    if (consumer.count.getAndIncrement() == 0) {
                        consumer.firstNanos = t;
                    }
                    consumer.lastNanos = t;
                    getChannel().basicAck(envelope.getDeliveryTag(), false);
                }
            });
            return consumer;
        }

        void await(long expected, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (count.get() < expected) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "consumed " + count.get() + " of " + expected + " within " + timeout);
                }
                Thread.sleep(50);
            }
        }

        long count() {
            return count.get();
        }

        double spanSeconds() {
            return Math.max(1e-9, (lastNanos - firstNanos) / 1e9);
        }

        long[] latenciesMicros() {
            return latencies.stream().mapToLong(Long::longValue).toArray();
        }

        @Override
        public void close() throws IOException {
            connection.close();
        }
    }
}
