package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.Slow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The service as its own process: {@code relay --loop} wakes on commits and stops cleanly on SIGTERM. */
@Slow
class RelayProcessIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @TempDir
    Path dir;

    @Test
    void loopsUntilSigtermThenFinishesThePassAndExitsZero() throws Exception {
        String queue = rabbit.queue("refunds");
        Path routes = ChildRelay.refundRoutes(dir, queue);
        Path stderr = dir.resolve("stderr.log");
        ProcessBuilder pb = ChildRelay.command(List.of(), "relay", "--loop", "--sleep=3600")
                .redirectErrorStream(false)
                .redirectError(stderr.toFile())
                .redirectOutput(dir.resolve("stdout.log").toFile());
        pb.environment().putAll(RelayCommandIT.env(db, rabbit, routes));
        Process process = pb.start();
        try {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> Files.readString(stderr).contains("listening on channel"));
            Tables tables = new Tables(db);

            // with a sleep of an hour, only the NOTIFY of the commit can wake the relay
            UUID event = tables.record(new OrderCancelled(1)).get(0);

            Awaitility.await()
                    .atMost(Duration.ofSeconds(15))
                    .until(() -> tables.deliveriesOf(event).stream()
                            .anyMatch(d -> d.getStatus() == OutboxDeliveryStatus.dispatched));
            process.destroy(); // SIGTERM
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).isZero();
            List<String> log = Files.readAllLines(stderr);
            assertThat(log).anyMatch(line -> line.contains("SIGTERM received"));
            assertThat(log).anyMatch(line -> line.contains("relay loop stopped"));
            // the loop's summary, written at the latest when the loop stops: it did something
            assertThat(log)
                    .anyMatch(line -> line.contains("relay in the last")
                            && line.contains("1 event(s) routed")
                            && line.contains("1 dispatched"));
        } finally {
            process.destroyForcibly();
        }
    }

    /** What a child process printed on stderr, and its exit code. */
    record Exit(int code, List<String> stderr) {}

    private Exit runProcess(java.util.Map<String, String> env, String... args) throws Exception {
        return runProcess(List.of(), env, args);
    }

    private Exit runProcess(List<String> jvmOptions, java.util.Map<String, String> env, String... args)
            throws Exception {
        Path stderr = dir.resolve("stderr-" + UUID.randomUUID() + ".log");
        ProcessBuilder pb = ChildRelay.command(jvmOptions, args)
                .redirectError(stderr.toFile())
                .redirectOutput(dir.resolve("stdout.log").toFile());
        pb.environment().putAll(env);
        Process process = pb.start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            return new Exit(process.exitValue(), Files.readAllLines(stderr));
        } finally {
            process.destroyForcibly();
        }
    }

    private java.util.Map<String, String> env() throws Exception {
        Path routes = dir.resolve("routes.yaml");
        Files.writeString(
                routes,
                "routes: {order.cancelled: [{job: refund, queue: %s, retryDelaysSeconds: [5], deliveryTimeoutSeconds: 60}]}"
                        .formatted(rabbit.queue("refunds")));
        return RelayCommandIT.env(db, rabbit, routes);
    }

    @Test
    void aJdbcUrlTheDriverCannotReadIsOneLineWithoutThePasswordEvenFromTheDriversLog() throws Exception {
        java.util.Map<String, String> env = env();
        env.put("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432?password=s3cret");

        Exit exit = runProcess(env, "status");

        assertThat(exit.code()).isEqualTo(2);
        assertThat(exit.stderr())
                .hasSize(1)
                .allMatch(line -> line.startsWith("outbox-relay: OUTBOX_JDBC_URL: ") && !line.contains("s3cret"));
    }

    @Test
    void aWrongBrokerPasswordIsOneLine() throws Exception {
        java.util.Map<String, String> env = env();
        dev.outbox.delivery.amqp.AmqpAddress broker = dev.outbox.delivery.amqp.AmqpAddress.parse(rabbit.uri(), "test");
        env.put(
                "OUTBOX_AMQP_URI",
                "amqp://" + broker.username() + ":wrong-s3cret@" + broker.host() + ":" + broker.port() + "/%2F");
        new Tables(db).record(new OrderCancelled(1));

        Exit exit = runProcess(env, "relay");

        assertThat(exit.code()).isEqualTo(1);
        assertThat(exit.stderr()).containsExactly("outbox-relay: broker unreachable (AuthenticationFailureException)");
    }

    @Test
    void printsNoJooqBannerOrTipEvenWithJooqsInfoLinesOn() throws Exception {
        Exit exit = runProcess(List.of("-Dorg.slf4j.simpleLogger.log.org.jooq=info"), env(), "status");

        assertThat(exit.code()).isZero();
        assertThat(exit.stderr()).anyMatch(line -> line.contains("Database version is supported")); // jOOQ's INFO is on
        assertThat(exit.stderr())
                .noneMatch(line -> line.contains("Thank you for using jOOQ")
                        || line.contains("tip of the day")
                        || line.contains("@@@@"));
    }
}
