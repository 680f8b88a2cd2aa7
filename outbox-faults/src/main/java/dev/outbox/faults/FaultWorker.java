package dev.outbox.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.worker.JobContext;
import dev.outbox.worker.OutboxWorker;
import dev.outbox.worker.RetryableOutboxException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;

/**
 * The suite's job service, in a process of its own: an {@link OutboxWorker} whose handlers write one
 * row per call (delivery, dispatch, attempt, pid, outcome) to the suite's table in its own
 * transaction, so that the database counts the handler calls. The handler of {@link DoomedEvent}
 * fails with a retryable error on every attempt. A row that cannot be written (the database is down)
 * is a retryable error too: the call did not happen as far as the count is concerned.
 */
public final class FaultWorker {

    static final String READY = "fault worker ready";
    static final String MAIN = FaultWorker.class.getName();

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
        config.setInitializationFailTimeout(-1); // started during a PostgreSQL restart: OutboxWorker.start() waits for it
        HikariDataSource dataSource = new HikariDataSource(config);
        String insert = "INSERT INTO " + schema + "." + Instrumentation.CALLS
                + " (delivery_id, event_id, dispatch_id, attempt, pid, outcome) VALUES (?, ?, ?, ?, ?, ?)";
        long pid = ProcessHandle.current().pid();
        OutboxWorker worker = OutboxWorker.builder()
                .dataSource(dataSource)
                .amqpUri(env("OUTBOX_AMQP_URI"))
                .tables(OutboxTables.defaults().withSchema(schema))
                .queue(env("FAULT_QUEUE"), 4, 100)
                .handler(FaultSuite.JOB, FaultEvent.class, (event, context) -> record(dataSource, insert, context, pid, "ok"))
                .handler(FaultSuite.DOOMED_JOB, DoomedEvent.class, (event, context) -> {
                    record(dataSource, insert, context, pid, "retryable");
                    throw new RetryableOutboxException("planned failure");
                })
                .shutdownGrace(Duration.ofSeconds(5))
                .shutdownHook(false)
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            worker.close();
            dataSource.close();
            stopped.countDown();
        }, "fault-worker-stop"));
        worker.start();
        System.out.println(READY);
        System.out.flush();
        stopped.await();
    }

    private static void record(DataSource dataSource, String insert, JobContext context, long pid, String outcome) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(insert)) {
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

    private static String env(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is not set");
        }
        return value;
    }
}
