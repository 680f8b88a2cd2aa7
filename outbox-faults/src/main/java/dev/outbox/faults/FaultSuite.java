package dev.outbox.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.api.Outbox;
import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The fault-injection suite: events recorded by producer threads through relays and workers that run
 * as processes of their own, on a private PostgreSQL and a private RabbitMQ node; a relay or worker
 * killed with -9 every few seconds and started again, broker stops, immediate PostgreSQL restarts;
 * then a drain, SIGTERM to every process, and the counts read from the database ({@link Report}).
 *
 * <pre>
 * java -jar outbox-faults/target/outbox-faults.jar [--small | --overload | --ordered] [--events N] [--producers P] [--relays R]
 *     [--workers W] [--fault-minutes M | --fault-seconds S] [--kill-every K] [--broker-stops N]
 *     [--broker-stop-seconds S] [--pg-restarts N] [--fail-share F] [--delivery-timeout S]
 *     [--drain-timeout S] [--seed N] [--slow-handler-ms MS] [--cpu-hogs N] [--recovery-seconds S]
 *     [--max-queue-depth N] [--dispatch-batch N] [--keys N] [--flaky-share F]
 *     [--terminal-share F] [--keep-logs]
 * </pre>
 *
 * {@code --overload} starts from {@link Scenario#overload()}: consumers slower than the producers, a
 * broker stop, then recovery, beside a CPU hog (issue 37). {@code --ordered} starts from
 * {@link Scenario#ordered()}: ordered routes over 100 keys, failures that block keys, and the suite
 * as the operator who unblocks them (issue 39, {@link OrderedKeys}).
 *
 * Exit 0 when the promises held (nothing lost, nothing completed twice, every duplicate explained,
 * drained, every process stopped on SIGTERM), 1 when one did not, 2 for a bad argument.
 */
public final class FaultSuite {

    static final String JOB = "fault-job";
    static final String DOOMED_JOB = "fault-doomed-job";
    static final String SCHEMA = "outbox_faults";
    static final String QUEUE = "outbox-faults-jobs";
    static final Duration SIGTERM_WAIT = Duration.ofSeconds(20);

    static {
        // the suite's own JVM: quiet libraries, so the progress lines stand out (the children log as users see them)
        defaultProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        defaultProperty("org.slf4j.simpleLogger.log.org.jooq", "off");
        defaultProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "error");
        defaultProperty("org.jooq.no-logo", "true");
        defaultProperty("org.jooq.no-tips", "true");
    }

    private FaultSuite() {}

    private static void defaultProperty(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    public static void main(String[] args) throws Exception {
        Scenario scenario;
        boolean keepLogs = false;
        try {
            Map<String, String> options = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--keep-logs" -> keepLogs = true;
                    case "--small", "--overload", "--ordered" -> options.put(args[i], "");
                    default -> {
                        if (!args[i].startsWith("--") || i + 1 >= args.length) {
                            throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
                        }
                        options.put(args[i], args[++i]);
                    }
                }
            }
            scenario = scenario(options);
        } catch (IllegalArgumentException e) {
            System.err.println("outbox-faults: " + e.getMessage());
            System.err.println(
                    "usage: java -jar outbox-faults.jar [--small | --overload | --ordered] [--events N] [--producers P] [--relays R]"
                            + " [--workers W] [--fault-minutes M | --fault-seconds S] [--kill-every K] [--broker-stops N] [--broker-stop-seconds S]"
                            + " [--pg-restarts N] [--fail-share F] [--delivery-timeout S] [--drain-timeout S] [--seed N] [--slow-handler-ms MS]"
                            + " [--cpu-hogs N] [--recovery-seconds S] [--max-queue-depth N] [--dispatch-batch N] [--keys N] [--flaky-share F]"
                            + " [--terminal-share F] [--keep-logs]");
            System.exit(2);
            return;
        }
        if (!PrivateRabbit.available()) {
            System.err.println(
                    "outbox-faults: rabbitmq-server and rabbitmqctl must be on the PATH (the suite starts a node of its own)");
            System.exit(2);
        }
        Path runDir = Files.createTempDirectory("outbox-faults-");
        Report report;
        try {
            report = run(scenario, runDir, System.out);
        } catch (Exception e) {
            System.err.println("outbox-faults: the run failed (" + e + "); logs kept in " + runDir);
            throw e;
        }
        System.out.println();
        System.out.print(report.toMarkdown());
        List<String> broken = report.brokenPromises(
                Boolean.parseBoolean(System.getProperty(STRICT_RELAY_EXITS, "true")),
                Boolean.parseBoolean(System.getProperty(STRICT_WORKER_EXITS, "true")));
        if (!report.unexplainedSamples().isEmpty()) {
            System.out.println();
            System.out.println("unexplained duplicates, one by one (the first "
                    + report.unexplainedSamples().size() + "):");
            report.unexplainedSamples().forEach(line -> System.out.println("  " + line));
        }
        System.out.println();
        System.out.println(broken.isEmpty() ? "promises held" : "promises broken: " + String.join("; ", broken));
        if (keepLogs) {
            System.out.println("logs: " + runDir.resolve("logs"));
        } else {
            Commands.deleteTree(runDir);
        }
        System.exit(broken.isEmpty() ? 0 : 1);
    }

    /** The system property ({@code true} unless set to {@code false}) that makes an unexpected relay exit a broken promise (issue 12, item 1). */
    public static final String STRICT_RELAY_EXITS = "outbox.faults.strictRelayExits";
    /** {@code false}: count workers that exit unasked without failing the run (to compare a build older than the worker's outage handling). */
    public static final String STRICT_WORKER_EXITS = "outbox.faults.strictWorkerExits";

    static Scenario scenario(Map<String, String> o) {
        List<String> starts = Stream.of("--small", "--overload", "--ordered")
                .filter(o::containsKey)
                .toList();
        if (starts.size() > 1) {
            throw new IllegalArgumentException(String.join(" and ", starts) + " exclude each other");
        }
        Scenario b = o.containsKey("--small")
                ? Scenario.small()
                : o.containsKey("--overload")
                        ? Scenario.overload()
                        : o.containsKey("--ordered") ? Scenario.ordered() : Scenario.full();
        for (String key : o.keySet()) {
            if (!List.of(
                            "--small",
                            "--overload",
                            "--ordered",
                            "--events",
                            "--producers",
                            "--relays",
                            "--workers",
                            "--fault-minutes",
                            "--fault-seconds",
                            "--kill-every",
                            "--broker-stops",
                            "--broker-stop-seconds",
                            "--pg-restarts",
                            "--fail-share",
                            "--delivery-timeout",
                            "--drain-timeout",
                            "--seed",
                            "--slow-handler-ms",
                            "--cpu-hogs",
                            "--recovery-seconds",
                            "--max-queue-depth",
                            "--dispatch-batch",
                            "--keys",
                            "--flaky-share",
                            "--terminal-share")
                    .contains(key)) {
                throw new IllegalArgumentException("unknown option '" + key + "'");
            }
        }
        int faultSeconds = o.containsKey("--fault-minutes")
                ? Math.multiplyExact(integer(o, "--fault-minutes", 0), 60)
                : integer(o, "--fault-seconds", b.faultSeconds());
        return new Scenario(
                integer(o, "--events", b.events()),
                integer(o, "--producers", b.producers()),
                integer(o, "--relays", b.relays()),
                integer(o, "--workers", b.workers()),
                faultSeconds,
                integer(o, "--kill-every", b.killEverySeconds()),
                integer(o, "--broker-stops", b.brokerStops()),
                integer(o, "--broker-stop-seconds", b.brokerStopSeconds()),
                integer(o, "--pg-restarts", b.pgRestarts()),
                decimal(o, "--fail-share", b.failShare()),
                b.retryDelays(),
                b.doomedRetryDelays(),
                integer(o, "--delivery-timeout", b.deliveryTimeoutSeconds()),
                integer(o, "--drain-timeout", b.drainTimeoutSeconds()),
                integer(o, "--seed", (int) b.seed()),
                integer(o, "--slow-handler-ms", b.slowHandlerMillis()),
                integer(o, "--cpu-hogs", b.cpuHogs()),
                integer(o, "--recovery-seconds", b.recoverySeconds()),
                integer(o, "--max-queue-depth", b.maxQueueDepth()),
                integer(o, "--dispatch-batch", b.dispatchBatchSize()),
                integer(o, "--keys", b.keys()),
                decimal(o, "--flaky-share", b.flakyShare()),
                decimal(o, "--terminal-share", b.terminalShare()));
    }

    private static int integer(Map<String, String> o, String key, int fallback) {
        return option(o, key, fallback, Integer::parseInt, "a whole number");
    }

    private static double decimal(Map<String, String> o, String key, double fallback) {
        return option(o, key, fallback, Double::parseDouble, "a number");
    }

    private static <T> T option(
            Map<String, String> o, String key, T fallback, java.util.function.Function<String, T> parse, String what) {
        String v = o.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            return parse.apply(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be " + what + ", got '" + v + "'");
        }
    }

    /** Runs one scenario in {@code runDir} (logs under {@code logs/}); every process and data directory is gone afterwards. */
    public static Report run(Scenario scenario, Path runDir, java.io.PrintStream out) throws Exception {
        Progress progress = new Progress(out);
        Files.createDirectories(runDir.resolve("logs"));
        Deque<AutoCloseable> cleanup = new ArrayDeque<>();
        Thread hook = new Thread(() -> closeAll(cleanup), "outbox-faults-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        long runStart = System.nanoTime();
        try {
            CompletableFuture<PrivateRabbit> rabbitStart =
                    CompletableFuture.supplyAsync(() -> PrivateRabbit.start(runDir));
            PrivatePostgres pg;
            try {
                pg = PrivatePostgres.start(runDir);
            } finally {
                rabbitStart
                        .handle((r, e) -> r == null ? null : push(cleanup, r))
                        .join();
            }
            push(cleanup, pg);
            PrivateRabbit rabbit = rabbitStart.join();
            progress.printf(
                    "private PostgreSQL on 127.0.0.1:%d, RabbitMQ node on 127.0.0.1:%d%n", pg.port(), rabbit.port());

            HikariDataSource dataSource = dataSource(pg, scenario.producers() + 2);
            push(cleanup, dataSource);
            OutboxTables tables = OutboxTables.defaults().withSchema(SCHEMA);
            OutboxMigrations.migrate(dataSource, tables);
            Instrumentation.install(dataSource, SCHEMA);
            Counts counts = new Counts(dataSource, SCHEMA);

            Path routes = runDir.resolve("routes.yaml");
            String orderedLine = scenario.orderedRoutes() ? "      ordered: true\n" : "";
            Files.writeString(
                    routes,
                    "routes:\n"
                            + "  fault.event:\n    - job: " + JOB + "\n      queue: " + QUEUE
                            + "\n      retryDelaysSeconds: "
                            + scenario.retryDelays() + "\n      deliveryTimeoutSeconds: "
                            + scenario.deliveryTimeoutSeconds() + "\n" + orderedLine
                            + "  fault.doomed:\n    - job: " + DOOMED_JOB + "\n      queue: " + QUEUE
                            + "\n      retryDelaysSeconds: "
                            + scenario.doomedRetryDelays() + "\n      deliveryTimeoutSeconds: "
                            + scenario.deliveryTimeoutSeconds() + "\n" + orderedLine);
            Map<String, String> env = new LinkedHashMap<>();
            env.put("OUTBOX_JDBC_URL", pg.jdbcUrl());
            env.put("OUTBOX_JDBC_USER", pg.user());
            env.put("OUTBOX_JDBC_PASSWORD", "");
            env.put("OUTBOX_AMQP_URI", rabbit.uri());
            env.put("OUTBOX_SCHEMA", SCHEMA);
            env.put("OUTBOX_ROUTES_FILE", routes.toString());
            env.put("FAULT_QUEUE", QUEUE);
            env.put("OUTBOX_MAX_QUEUE_DEPTH", Integer.toString(scenario.maxQueueDepth()));
            env.put("OUTBOX_DISPATCH_BATCH_SIZE", Integer.toString(scenario.dispatchBatchSize()));
            Path delayFile = runDir.resolve("handler-delay-ms");
            setHandlerDelay(delayFile, 0);
            env.put(FaultWorker.DELAY_FILE, delayFile.toString());

            Supervisor supervisor = new Supervisor(scenario.relays(), scenario.workers(), env, runDir.resolve("logs"));
            push(cleanup, supervisor);
            supervisor.awaitReady(Duration.ofMinutes(2));
            progress.printf("%d relay(s) and %d worker(s) ready%n", scenario.relays(), scenario.workers());

            CpuHogs hogs = push(cleanup, CpuHogs.start(scenario.cpuHogs()));
            Sampler sampler = new Sampler(counts, rabbit.uri(), QUEUE, runStart);
            sampler.start();
            Outbox outbox = Outbox.builder().tables(tables).build();
            progress.printf(
                    "producers and faults start%s%n",
                    scenario.overloaded()
                            ? String.format(
                                    java.util.Locale.ROOT,
                                    " (handlers take %d ms, %d CPU hog(s))",
                                    scenario.slowHandlerMillis(),
                                    scenario.cpuHogs())
                            : "");
            setHandlerDelay(delayFile, scenario.slowHandlerMillis());
            Producers producers = new Producers(scenario, dataSource, outbox, scenario.offeredPerSecond());
            producers.start();
            long faultStart = System.nanoTime();
            List<Outage> outages = injectFaults(scenario, supervisor, pg, rabbit, producers, progress);
            setHandlerDelay(delayFile, 0);
            long lastFaultNanos = System.nanoTime();
            if (scenario.recoverySeconds() > 0) {
                progress.printf(
                        "faults over, handlers fast again; the producers go on for %d s%n", scenario.recoverySeconds());
            }
            producers.await();
            long quietNanos = System.nanoTime();
            double faultPeriod = ((scenario.recoverySeconds() > 0 ? lastFaultNanos : quietNanos) - faultStart) / 1e9;
            progress.printf(
                    "faults over, %,d events recorded (%,d producer errors); draining%n",
                    producers.acknowledged().size(), producers.errors());

            Duration drainTimeout = Duration.ofSeconds(scenario.drainTimeoutSeconds());
            boolean drained = settle(counts, producers.acknowledged().size(), quietNanos + drainTimeout.toNanos());
            OrderedKeys ordered = scenario.orderedRoutes() ? new OrderedKeys(counts, dataSource, tables) : null;
            if (ordered != null) {
                // the operator's part: a blocked key waits for a skip or a requeue, then the run settles again
                for (int round = 1; drained && round <= OrderedKeys.MAX_ROUNDS; round++) {
                    int heads = ordered.unblockRound();
                    if (heads == 0) {
                        break;
                    }
                    progress.printf(
                            "round %d: %d blocked key(s), every other one skipped, the rest healed and requeued%n",
                            round, heads);
                    drained =
                            settle(counts, producers.acknowledged().size(), System.nanoTime() + drainTimeout.toNanos());
                }
                drained = drained && counts.open() == 0;
            }
            double drainSeconds = (System.nanoTime() - quietNanos) / 1e9;
            sampler.stop();
            hogs.close();
            progress.printf(
                    drained
                            ? "drained in %.1f s; SIGTERM to every process%n"
                            : "not drained after %.0f s; SIGTERM to every process%n",
                    drainSeconds);
            List<Supervisor.Stop> stops = supervisor.terminateAll(SIGTERM_WAIT);
            List<Load.Sample> samples = sampler.samples();
            double lastFault = sampler.seconds(lastFaultNanos);
            double producersStopped = sampler.seconds(quietNanos);
            double recovery =
                    scenario.recoverySeconds() > 0 ? Load.recovery(samples, lastFault, producersStopped) : Double.NaN;
            LogVolume logs = LogVolume.of(runDir.resolve("logs"));
            Load load = new Load(
                    sampler.peakReady.get(),
                    (long) scenario.relays() * (scenario.maxQueueDepth() + scenario.dispatchBatchSize()),
                    recovery,
                    Load.goodput(samples, lastFault + recovery, producersStopped),
                    logs.bytes(),
                    logs.warnLines(),
                    logs.errorLines(),
                    counts.failedWithoutCall(),
                    counts.failed());
            writeTimeline(runDir.resolve("logs").resolve("faults.txt"), supervisor, outages);
            return counts.report(
                    scenario,
                    (System.nanoTime() - runStart) / 1e9,
                    faultPeriod,
                    producers,
                    supervisor,
                    outages,
                    sampler.peakUnrouted.get(),
                    sampler.peakDispatched.get(),
                    drained,
                    drainSeconds,
                    stops,
                    load,
                    ordered == null ? null : ordered.result());
        } finally {
            closeAll(cleanup);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is going down: the hook runs (and finds nothing left to close)
            }
        }
    }

    /**
     * Waits until every committed event is stored and routed and every delivery has ended, except
     * those behind a blocked head of an ordered route; false when {@code deadline} came first.
     */
    private static boolean settle(Counts counts, int acknowledged, long deadline) throws InterruptedException {
        while (System.nanoTime() < deadline) {
            try {
                if (counts.unrouted() == 0 && counts.openNotBlocked() == 0 && counts.events() >= acknowledged) {
                    return true;
                }
            } catch (RuntimeException e) {
                // the database is still recovering: ask again
            }
            Thread.sleep(200);
        }
        return false;
    }

    /** Every fault with its time, for reading the kept logs beside the report: kills, unasked exits, outages. */
    private static void writeTimeline(Path file, Supervisor supervisor, List<Outage> outages) {
        List<String> lines = new ArrayList<>();
        supervisor
                .kills()
                .forEach(k -> lines.add(
                        k.at() + " kill -9 " + k.name() + " pid " + k.pid() + " (reaped " + k.reaped() + ")"));
        supervisor
                .exits()
                .forEach(x -> lines.add(x.at() + " unasked exit " + x.name() + " pid " + x.pid() + " code "
                        + x.exitCode() + " (" + x.log() + "): " + x.lastLogLine()));
        outages.forEach(o -> lines.add(o.start() + " " + o.kind().label + " until " + o.end()));
        java.util.Collections.sort(lines);
        try {
            Files.write(file, lines);
        } catch (java.io.IOException e) {
            System.err.println(
                    "outbox-faults: cannot write " + file + " (" + e.getClass().getSimpleName() + ")");
        }
    }

    /**
     * The schedule: the outages spread evenly over the fault period, broker stops and PostgreSQL
     * restarts alternating; a kill every ~K s (±30 %) until the period is over and the producers are
     * done, so that every event is recorded under faults: a relay first, then a worker, then any.
     */
    private static List<Outage> injectFaults(
            Scenario sc,
            Supervisor supervisor,
            PrivatePostgres pg,
            PrivateRabbit rabbit,
            Producers producers,
            Progress progress)
            throws InterruptedException {
        record Action(long atMillis, String what) {}
        Random random = new Random(sc.seed());
        List<Action> plan = new ArrayList<>();
        long horizon = sc.faultSeconds() * 1000L;
        int outageCount = sc.brokerStops() + sc.pgRestarts();
        int brokers = 0;
        int restarts = 0;
        for (int j = 0; j < outageCount; j++) {
            long t = (long) (horizon * (j + 0.5) / outageCount);
            boolean broker = restarts >= sc.pgRestarts() || (brokers < sc.brokerStops() && brokers <= restarts);
            if (broker) {
                brokers++;
                plan.add(new Action(t, "broker-stop"));
                plan.add(new Action(t + sc.brokerStopSeconds() * 1000L, "broker-start"));
            } else {
                restarts++;
                plan.add(new Action(t, "pg-restart"));
            }
        }
        plan.sort(Comparator.comparingLong(Action::atMillis));
        Deque<Action> pending = new ArrayDeque<>(plan);
        List<Outage> outages = new ArrayList<>();
        @Nullable Instant brokerDown = null;
        long nextKill = sc.killEverySeconds() > 0 ? jitter(random, sc.killEverySeconds()) : Long.MAX_VALUE;
        long start = System.nanoTime();
        while (true) {
            long now = (System.nanoTime() - start) / 1_000_000;
            if (pending.isEmpty() && now >= horizon && (producers.done() || sc.recoverySeconds() > 0)) {
                break;
            }
            if (pending.isEmpty() && now >= 4 * horizon + 300_000) {
                producers.stop(); // bounded: the producers could not keep up, record no more
                progress.printf("faults +%.1f s: the producers are far behind; they stop recording%n", now / 1000.0);
                break;
            }
            Action a = pending.peek();
            boolean outageDue = a != null && a.atMillis <= now;
            if (!outageDue && nextKill > now) {
                long until = Math.min(nextKill, a != null ? a.atMillis : now + 200);
                Thread.sleep(Math.max(1, Math.min(200, until - now)));
                continue;
            }
            double at = now / 1000.0; // seconds into the fault period
            if (!outageDue) {
                // the first kill hits a relay, the second a worker (slots: relays, then workers), then any at random
                int killed = supervisor.kills().size();
                Supervisor.Kill k = supervisor.killAndRestart(
                        killed == 0 ? 0 : killed == 1 ? sc.relays() : random.nextInt(supervisor.size()));
                progress.printf("faults +%.1f s: kill -9 %s (pid %d), started again%n", at, k.name(), k.pid());
                nextKill = now + jitter(random, sc.killEverySeconds());
                continue;
            }
            pending.poll();
            switch (a.what) {
                case "broker-stop" -> {
                    brokerDown = Instant.now();
                    rabbit.stopApp();
                    progress.printf("faults +%.1f s: broker stopped%n", at);
                }
                case "broker-start" -> {
                    rabbit.startApp();
                    outages.add(new Outage(
                            Outage.Kind.BROKER_STOP, java.util.Objects.requireNonNull(brokerDown), Instant.now()));
                    progress.printf("faults +%.1f s: broker started%n", at);
                }
                case "pg-restart" -> {
                    Instant from = Instant.now();
                    pg.restartImmediate();
                    outages.add(new Outage(Outage.Kind.PG_RESTART, from, Instant.now()));
                    progress.printf("faults +%.1f s: PostgreSQL restarted (-m immediate)%n", at);
                }
                default -> throw new IllegalStateException(a.what);
            }
        }
        return outages;
    }

    /** Tells the workers how long each handler call takes from now on ({@link FaultWorker#DELAY_FILE}), by an atomic rename. */
    private static void setHandlerDelay(Path file, int millis) throws java.io.IOException {
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.writeString(next, Integer.toString(millis));
        Files.move(
                next,
                file,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static long jitter(Random random, int seconds) {
        return (long) (seconds * 1000L * (0.7 + 0.6 * random.nextDouble()));
    }

    private static HikariDataSource dataSource(PrivatePostgres pg, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.jdbcUrl());
        config.setUsername(pg.user());
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(10_000);
        config.setPoolName("outbox-faults");
        return new HikariDataSource(config);
    }

    private static <T extends AutoCloseable> T push(Deque<AutoCloseable> cleanup, T resource) {
        synchronized (cleanup) {
            cleanup.push(resource);
        }
        return resource;
    }

    private static void closeAll(Deque<AutoCloseable> cleanup) {
        while (true) {
            AutoCloseable c;
            synchronized (cleanup) {
                c = cleanup.poll();
            }
            if (c == null) {
                return;
            }
            try {
                c.close();
            } catch (Exception e) {
                System.err.println("outbox-faults: cleanup of " + c.getClass().getSimpleName() + " failed ("
                        + e.getClass().getSimpleName() + ")");
            }
        }
    }

    /** Progress lines, each with the seconds since the run began. */
    private static final class Progress {
        private final java.io.PrintStream out;
        private final long start = System.nanoTime();

        Progress(java.io.PrintStream out) {
            this.out = out;
        }

        void printf(String format, Object... args) {
            out.printf(
                    java.util.Locale.ROOT,
                    "[%6.1f s] %s",
                    (System.nanoTime() - start) / 1e9,
                    String.format(java.util.Locale.ROOT, format, args));
            out.flush();
        }
    }
}
