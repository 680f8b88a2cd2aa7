package dev.outbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.worker.OutboxWorker;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The benchmark's job service: an {@link OutboxWorker} with a no-op handler, in a process of its own.
 * It records, per handler call, the time from the event's recording to the handler's start, and on
 * SIGTERM writes them to {@code BENCH_LATENCY_FILE} before the worker closes.
 */
public final class BenchWorker {

    static final String READY = "bench worker ready";
    /** The handled events whose latency is kept (two arrays of this length: 12 MB of the worker's heap). */
    private static final int MAX_SAMPLES = 1_000_000;

    private BenchWorker() {}

    public static void main(String[] args) throws Exception {
        String queue = env("BENCH_QUEUE");
        Path latencyFile = Path.of(env("BENCH_LATENCY_FILE"));
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(env("OUTBOX_JDBC_URL"));
        config.setUsername(System.getenv().getOrDefault("OUTBOX_JDBC_USER", "postgres"));
        config.setPassword(System.getenv().getOrDefault("OUTBOX_JDBC_PASSWORD", ""));
        config.setMaximumPoolSize(10);
        config.setPoolName("bench-worker");
        HikariDataSource dataSource = new HikariDataSource(config);
        AtomicLongArray latencies = new AtomicLongArray(MAX_SAMPLES);
        java.util.concurrent.atomic.AtomicIntegerArray sequences =
                new java.util.concurrent.atomic.AtomicIntegerArray(MAX_SAMPLES);
        AtomicInteger count = new AtomicInteger();
        OutboxWorker.Builder builder = OutboxWorker.builder();
        java.util.concurrent.ScheduledExecutorService scraper =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "bench-worker-scrape");
                    t.setDaemon(true);
                    return t;
                });
        if (Boolean.parseBoolean(System.getenv("BENCH_METRICS"))) { // meters on, scraped as Prometheus would
            io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry =
                    new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                            io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
            builder.meterRegistry(registry);
            // the scrape only loads the registry as Prometheus would; its result is not needed
            var unused = scraper.scheduleAtFixedRate(
                    registry::scrape,
                    Bench.SCRAPE_SECONDS,
                    Bench.SCRAPE_SECONDS,
                    java.util.concurrent.TimeUnit.SECONDS);
        }
        OutboxWorker worker = builder.dataSource(dataSource)
                .amqpUri(env("OUTBOX_AMQP_URI"))
                .tables(OutboxTables.defaults().withSchema(env("OUTBOX_SCHEMA")))
                .queue(queue, 8, 500)
                .handler("bench-job", BenchEvent.class, (event, context) -> {
                    long micros = BenchEvent.nowMicros() - event.recordedAtMicros();
                    int i = count.getAndIncrement();
                    if (i < MAX_SAMPLES) {
                        latencies.set(i, micros);
                        sequences.set(i, Math.toIntExact(event.sequence()));
                    }
                })
                .shutdownHook(false)
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            worker.close();
                            writeLatencies(latencyFile, sequences, latencies, Math.min(count.get(), MAX_SAMPLES));
                            dataSource.close();
                            stopped.countDown();
                        },
                        "bench-worker-stop"));
        worker.start();
        System.out.println(READY);
        System.out.flush();
        stopped.await();
    }

    /** Each handled event, in the order the handlers started: its sequence and its latency from when it was made. */
    @SuppressWarnings("ArrayRecordComponent") // a carrier of two columns, never compared or hashed
    record Handled(long[] sequences, long[] fromMadeMicros) {}

    private static void writeLatencies(
            Path file, java.util.concurrent.atomic.AtomicIntegerArray sequences, AtomicLongArray latencies, int n) {
        try (DataOutputStream out =
                new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(file)))) {
            out.writeInt(n);
            for (int i = 0; i < n; i++) {
                out.writeInt(sequences.get(i));
                out.writeLong(latencies.get(i));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Handled readLatencies(Path file) throws IOException {
        try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(file)))) {
            int n = in.readInt();
            long[] sequences = new long[n];
            long[] latencies = new long[n];
            for (int i = 0; i < n; i++) {
                sequences[i] = in.readInt();
                latencies[i] = in.readLong();
            }
            return new Handled(sequences, latencies);
        }
    }

    static void awaitReady(Path log, Duration timeout) throws IOException, InterruptedException {
        awaitLine(log, READY, timeout);
    }

    /** Waits until {@code log} holds {@code marker}. */
    static void awaitLine(Path log, String marker, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log).contains(marker)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("'" + marker + "' did not appear within " + timeout + ", see " + log);
    }

    private static String env(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is not set");
        }
        return value;
    }
}
