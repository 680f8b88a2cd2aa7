package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.TestPostgres;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Micrometer is an optional dependency: a relay without a registry runs in a JVM whose class path lacks it. */
class MicrometerAbsentIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    @Test
    void aRelayWithoutARegistryRunsWithoutMicrometerOnTheClassPath() throws Exception {
        String queue = fixture.queue("refunds");
        UUID event = fixture.tables().record(new OrderCancelled(1)).get(0);
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("micrometer")
                        && !entry.contains("HdrHistogram")
                        && !entry.contains("LatencyUtils"))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(System.getProperty("java.class.path"))
                .as("the test's own class path has it")
                .contains("micrometer-core");
        TestPostgres pg = TestPostgres.get();
        Process child = new ProcessBuilder(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        classPath,
                        RelayWithoutMicrometer.class.getName(),
                        pg.jdbcUrl(),
                        pg.user(),
                        pg.password(),
                        fixture.db.schema(),
                        fixture.rabbit.uri(),
                        queue))
                .redirectErrorStream(true)
                .start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(child.exitValue()).as(output).isZero();
        assertThat(output).contains("micrometer absent", "routed 1, confirmed 1");
        assertThat(fixture.tables().delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(fixture.broker().take(queue, 1)).hasSize(1);
    }
}
