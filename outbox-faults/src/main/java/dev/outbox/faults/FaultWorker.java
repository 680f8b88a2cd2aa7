package dev.outbox.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.worker.JobContext;
import dev.outbox.worker.OutboxWorker;
import dev.outbox.worker.RetryableOutboxException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;

/**
 * The suite's job service, in a process of its own: an {@link OutboxWorker} whose handlers write one
 * row per call to the suite's table in their own transaction, so that the database counts the calls.
 * {@link DoomedEvent} fails (retryably) on every attempt; an event noted {@link FaultEvent#FLAKY}
 * on its first; one noted {@link FaultEvent#TERMINAL} for good until the suite heals it
 * ({@link Instrumentation#HEALED}). A row that cannot be written is a retryable error: the call did
 * not happen as far as the count is concerned. {@code FAULT_HANDLER_DELAY_FILE}, when set, names a
 * file holding each call's delay in milliseconds, so the suite can slow the handlers without a restart.
 */
public final class FaultWorker {

    static final String READY = "fault worker ready";
    static final String MAIN = FaultWorker.class.getName();
    static final String DELAY_FILE = "FAULT_HANDLER_DELAY_FILE";

    private static volatile long delayMillis;

    private FaultWorker() {}

    public static void main(String[] args) throws Exception {
        String schema = env("OUTBOX_SCHEMA");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(env("OUTBOX_JDBC_URL"));
        config.setUsername(System.getenv().getOrDefault("OUTBOX_JDBC_USER", "postgres"));
        config.setPassword(System.getenv().getOrDefault("OUTBOX_JDBC_PASSWORD", ""));
        config.setMaximumPoolSize(6);
        config.setConnectionTimeout(10_000);
        config.setPoolName("fault-worker");
        config.setInitializationFailTimeout(
                -1); // started during a PostgreSQL restart: OutboxWorker.start() waits for it
        HikariDataSource dataSource = new HikariDataSource(config);
        String insert = "INSERT INTO " + schema + "." + Instrumentation.CALLS
                + " (delivery_id, event_id, dispatch_id, attempt, pid, outcome) VALUES (?, ?, ?, ?, ?, ?)";
        String healedQuery = "SELECT 1 FROM " + schema + "." + Instrumentation.HEALED + " WHERE event_id = ?";
        long pid = ProcessHandle.current().pid();
        String delayFile = System.getenv(DELAY_FILE);
        if (delayFile != null && !delayFile.isBlank()) {
            Thread reader = new Thread(() -> readDelay(Path.of(delayFile)), "fault-worker-delay");
            reader.setDaemon(true);
            reader.start();
        }
        OutboxWorker worker = OutboxWorker.builder()
                .dataSource(dataSource)
                .amqpUri(env("OUTBOX_AMQP_URI"))
                .tables(OutboxTables.defaults().withSchema(schema))
                .queue(env("FAULT_QUEUE"), 4, 100)
                .handler(FaultSuite.JOB, FaultEvent.class, (event, context) -> {
                    if (event.note().equals(FaultEvent.FLAKY) && context.attempt() == 1) {
                        record(dataSource, insert, context, pid, "retryable");
                        throw new RetryableOutboxException("planned failure on the first attempt");
                    }
                    if (event.note().equals(FaultEvent.TERMINAL) && !healed(dataSource, healedQuery, context)) {
                        record(dataSource, insert, context, pid, "terminal");
                        throw new IllegalStateException("planned failure for good");
                    }
                    record(dataSource, insert, context, pid, "ok");
                    long delay = delayMillis;
                    if (delay > 0) {
                        Thread.sleep(delay);
                    }
                })
                .handler(FaultSuite.DOOMED_JOB, DoomedEvent.class, (event, context) -> {
                    record(dataSource, insert, context, pid, "retryable");
                    throw new RetryableOutboxException("planned failure");
                })
                .shutdownGrace(Duration.ofSeconds(5))
                .shutdownHook(false)
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            worker.close();
                            dataSource.close();
                            stopped.countDown();
                        },
                        "fault-worker-stop"));
        worker.start();
        System.out.println(READY);
        System.out.flush();
        stopped.await();
    }

    private static void record(DataSource dataSource, String insert, JobContext context, long pid, String outcome) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement(insert)) {
            s.setObject(1, context.deliveryId());
            s.setObject(2, context.eventId());
            s.setObject(3, context.dispatchId());
            s.setInt(4, context.attempt());
            s.setLong(5, pid);
            s.setString(6, outcome);
            s.executeUpdate();
        } catch (SQLException e) {
            throw new RetryableOutboxException("the handler call could not be recorded", e);
        }
    }

    /** Whether the suite healed this event (an operator fixed what made it fail for good). */
    private static boolean healed(DataSource dataSource, String query, JobContext context) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement(query)) {
            s.setObject(1, context.eventId());
            try (var rs = s.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw new RetryableOutboxException("whether the event is healed could not be read", e);
        }
    }

    /** Keeps {@link #delayMillis} at what {@code file} says; a file being rewritten (empty, partial) keeps the last value. */
    private static void readDelay(Path file) {
        while (true) {
            try {
                String text = Files.exists(file) ? Files.readString(file).strip() : "0";
                if (!text.isEmpty()) {
                    delayMillis = Long.parseLong(text);
                }
            } catch (IOException | NumberFormatException e) {
                // rewritten as we read it: the next read gets it
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static String env(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is not set");
        }
        return value;
    }
}
