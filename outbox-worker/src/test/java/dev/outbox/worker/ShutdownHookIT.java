package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.EventType;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.Slow;
import dev.outbox.testing.TestPostgres;
import dev.outbox.worker.WorkerFixture.Sent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/** SIGTERM to a JVM running a worker: the shutdown hook closes it, and a job still running after the grace period is marked worker_died. */
@Slow
class ShutdownHookIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    /** The child JVM: a worker whose only job never ends, with the default shutdown hook and a grace of 500 ms. */
    public static void main(String[] args) throws Exception {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(args[0]);
        ds.setUser(args[1]);
        ds.setPassword(args[2]);
        OutboxWorker worker = OutboxWorker.builder()
                .dataSource(ds)
                .amqpUri(args[3])
                .tables(OutboxTables.defaults().withSchema(args[4]))
                .queue(args[5], 1, 1)
                .handler("endless", OrderPlaced.class, (event, context) -> {
                    System.out.println("started " + context.deliveryId());
                    System.out.flush();
                    Thread.sleep(600_000); // a job that never ends: the hook must stop the worker anyway
                })
                .shutdownGrace(Duration.ofMillis(500))
                .build();
        worker.start();
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(600_000); // the child process lives until the test signals it
    }

    @Test
    void sigtermClosesTheWorkerAndMarksTheJobStillRunningWorkerDied() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture(db, rabbit)) {
            String queue = fixture.queue("hook");
            TestPostgres pg = TestPostgres.get();
            Process child = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            ShutdownHookIT.class.getName(),
                            pg.jdbcUrl(),
                            pg.user(),
                            pg.password(),
                            rabbit.uri(),
                            db.schema(),
                            queue)
                    .redirectErrorStream(true)
                    .start();
            try {
                ChildOutput out = new ChildOutput(child);
                out.awaitLine("ready");
                Sent sent = fixture.dispatched(new OrderPlaced(1), "endless", queue, List.of(60));
                fixture.publish(sent);
                out.awaitLine("started " + sent.deliveryId());

                child.destroy(); // SIGTERM

                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(fixture.status(sent.deliveryId())).isEqualTo(OutboxDeliveryStatus.failed);
                assertThat(fixture.row(sent.deliveryId()).getFailureReason()).isEqualTo("worker_died");
                assertThat(fixture.ready(queue))
                        .as("the message was acknowledged after T8")
                        .isZero();
            } finally {
                child.destroyForcibly();
            }
        }
    }

    /**
     * The child's output line by line, read by a daemon thread so that a child that hangs cannot hang
     * the test: {@link #awaitLine} waits with a deadline.
     */
    private static final class ChildOutput {

        private static final Duration LINE_DEADLINE = Duration.ofSeconds(60);

        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final Thread reader;

        ChildOutput(Process child) {
            reader = new Thread(
                    () -> {
                        try (BufferedReader out = new BufferedReader(
                                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                            String line;
                            while ((line = out.readLine()) != null) {
                                System.err.println("child: " + line);
                                lines.add(line);
                            }
                        } catch (IOException e) {
                            System.err.println("child output: " + e);
                        }
                    },
                    "child-output");
            reader.setDaemon(true);
            reader.start();
        }

        /** Waits up to a minute for a line starting with {@code expected}. */
        void awaitLine(String expected) throws InterruptedException {
            long deadline = System.nanoTime() + LINE_DEADLINE.toNanos();
            while (System.nanoTime() < deadline) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line != null && line.startsWith(expected)) {
                    return;
                }
                if (line == null && !reader.isAlive() && lines.isEmpty()) {
                    throw new AssertionError("the child JVM ended before printing '" + expected + "'");
                }
            }
            throw new AssertionError("the child JVM printed no '" + expected + "' within " + LINE_DEADLINE);
        }
    }
}
