package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
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
        Path routes = dir.resolve("routes.json");
        Files.writeString(routes, """
                {"routes": {"order.cancelled": [{"job": "refund", "queue": "%s", "retryDelaysSeconds": [5], "deliveryTimeoutSeconds": 60}]}}
                """.formatted(queue));
        Path stderr = dir.resolve("stderr.log");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), RelayCommand.class.getName(), "relay", "--loop", "--sleep=3600")
                .redirectErrorStream(false)
                .redirectError(stderr.toFile())
                .redirectOutput(dir.resolve("stdout.log").toFile());
        pb.environment().putAll(RelayCommandIT.env(db, rabbit, routes));
        Process process = pb.start();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(stderr).contains("listening on channel"));
            Tables tables = new Tables(db);

            // with a sleep of an hour, only the NOTIFY of the commit can wake the relay
            UUID event = tables.record(new OrderCancelled(1)).get(0);

            Awaitility.await().atMost(Duration.ofSeconds(15))
                    .until(() -> tables.deliveriesOf(event).stream().anyMatch(d -> d.getStatus() == OutboxDeliveryStatus.dispatched));
            process.destroy(); // SIGTERM
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).isZero();
            List<String> log = Files.readAllLines(stderr);
            assertThat(log).anyMatch(line -> line.contains("SIGTERM received"));
            assertThat(log).anyMatch(line -> line.contains("relay loop stopped"));
        } finally {
            process.destroyForcibly();
        }
    }
}
