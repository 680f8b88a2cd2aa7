package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.EventType;
import dev.outbox.api.Outbox;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TestPostgres;
import dev.outbox.worker.WorkerFixture.Sent;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Micrometer and OpenTelemetry are optional: a JVM whose class path holds neither records an event
 * and runs a job, and nothing fails for their absence.
 */
class WithoutOptionalLibrariesIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    /** The child JVM: records one event, then runs the job of the delivery named in the arguments, and says what it saw. */
    public static void main(String[] args) throws Exception {
        for (String absent : List.of(
                "io.micrometer.core.instrument.MeterRegistry",
                "io.opentelemetry.api.OpenTelemetry",
                "io.opentelemetry.context.Context")) {
            try {
                Class.forName(absent);
                System.out.println("unexpected: " + absent + " is on the class path");
                System.exit(3);
            } catch (ClassNotFoundException expected) {
                // the point of this JVM
            }
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(args[0]);
        ds.setUser(args[1]);
        ds.setPassword(args[2]);
        OutboxTables tables = OutboxTables.defaults().withSchema(args[4]);
        Outbox outbox = Outbox.builder().tables(tables).notifications(false).build();
        UUID recorded =
                DSL.using(ds, SQLDialect.POSTGRES).transactionResult(tx -> outbox.record(tx.dsl(), new OrderPlaced(2)));
        System.out.println("recorded " + recorded);

        CountDownLatch handled = new CountDownLatch(1);
        try (OutboxWorker worker = OutboxWorker.builder()
                .dataSource(ds)
                .amqpUri(args[3])
                .tables(tables)
                .shutdownHook(false)
                .queue(args[5], 1, 1)
                .handler("ping", OrderPlaced.class, (event, context) -> {
                    System.out.println("handled " + context.deliveryId() + " traceparent "
                            + context.traceparent().orElse("none"));
                    handled.countDown();
                })
                .build()) {
            worker.start();
            if (!handled.await(60, TimeUnit.SECONDS)) {
                System.out.println("no job ran within 60 s");
                System.exit(4);
            }
        }
        System.out.println("closed");
    }

    @Test
    void recordsAndRunsAJobWithNeitherMicrometerNorOpenTelemetryOnTheClassPath() throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("micrometer") && !entry.contains("opentelemetry"))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(System.getProperty("java.class.path"))
                .as("this JVM has both, so the filter removes something")
                .contains("micrometer-core")
                .contains("opentelemetry-api");
        try (WorkerFixture fixture = new WorkerFixture(db, rabbit)) {
            String queue = fixture.queue("no-optional-jars");
            Sent sent = fixture.dispatched(new OrderPlaced(1), "ping", queue, List.of(60));
            fixture.publish(sent);
            TestPostgres pg = TestPostgres.get();
            Process child = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            classPath,
                            WithoutOptionalLibrariesIT.class.getName(),
                            pg.jdbcUrl(),
                            pg.user(),
                            pg.password(),
                            rabbit.uri(),
                            db.schema(),
                            queue)
                    .redirectErrorStream(true)
                    .start();
            CompletableFuture<String> read = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (java.io.IOException e) {
                    return "cannot read the child's output: " + e;
                }
            });
            try {
                boolean exited = child.waitFor(120, TimeUnit.SECONDS);
                child.destroyForcibly();
                String output = read.get(30, TimeUnit.SECONDS);
                System.err.println(output);
                assertThat(exited).as("the child JVM exited").isTrue();
                assertThat(child.exitValue()).as(output).isZero();
                assertThat(output)
                        .contains("recorded ", "handled " + sent.deliveryId() + " traceparent none", "closed")
                        .doesNotContain("NoClassDefFoundError", "ClassNotFoundException");
                assertThat(fixture.status(sent.deliveryId())).isEqualTo(OutboxDeliveryStatus.completed);
            } finally {
                child.destroyForcibly();
            }
        }
    }
}
