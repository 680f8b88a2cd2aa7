package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.admin.AdminFixture;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code relay --loop} with {@code OUTBOX_RETENTION_*}: two relay processes on the same tables purge
 * what retention names while leaving everything else, one at a time (the advisory lock), and a bad
 * retention setting is refused before the relay starts.
 */
class RetentionLoopIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @TempDir
    Path dir;

    Path routes() throws Exception {
        return ChildRelay.refundRoutes(dir, rabbit.queue("refunds"));
    }

    @Test
    void twoLoopingRelaysPurgeByThemselvesOneAtATimeAndLeaveTheRest() throws Exception {
        AdminFixture rows = new AdminFixture(db.dataSource(), db.tables());
        Instant old = Instant.now().minus(Duration.ofDays(10));
        List<UUID> oldCompleted = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            oldCompleted.add(rows.delivery(
                    rows.event("order.placed", "{}", old, true),
                    OutboxDeliveryStatus.completed,
                    "a",
                    "emails",
                    null,
                    null,
                    old));
        }
        UUID recent = rows.delivery(
                rows.event("order.placed", "{}", Instant.now(), true),
                OutboxDeliveryStatus.completed,
                "a",
                "emails",
                null,
                null,
                Instant.now());
        UUID oldFailed = rows.failed("order.placed", "a", "emails", "timeout", old);
        UUID unrouted = rows.event("order.placed", "{}", old, false);
        Map<String, String> env = RelayCommandIT.env(db, rabbit, routes());
        env.put("OUTBOX_RETENTION_COMPLETED", "7d");
        env.put("OUTBOX_RETENTION_INTERVAL", "1s");
        env.put("OUTBOX_RETENTION_BATCH_SIZE", "5");
        List<Process> relays = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Path log = dir.resolve("relay-" + i + ".log");
                ProcessBuilder pb = ChildRelay.command(List.of(), "relay", "--loop", "--sleep=3600")
                        .redirectError(log.toFile())
                        .redirectOutput(dir.resolve("relay-" + i + ".out").toFile());
                pb.environment().putAll(env);
                relays.add(pb.start());
                logs.add(log);
            }

            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> oldCompleted.stream().allMatch(id -> rows.row(id) == null));
            // a few more rounds of both relays
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> count(logs, "purged ") + count(logs, "retention round skipped") >= 6);

            assertThat(rows.row(recent)).isNotNull();
            assertThat(rows.status(oldFailed)).as("no failed retention given").isEqualTo(OutboxDeliveryStatus.failed);
            assertThat(rows.eventExists(unrouted))
                    .as("unrouted only when asked")
                    .isTrue();
            assertThat(rows.events()).isEqualTo(3);
            for (Process relay : relays) {
                relay.destroy();
                assertThat(relay.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(relay.exitValue()).isZero();
            }
            for (Path log : logs) {
                assertThat(Files.readString(log))
                        .contains("retention every PT1S: completed after PT168H")
                        .doesNotContain("round failed");
            }
        } finally {
            relays.forEach(Process::destroyForcibly);
        }
    }

    static long count(List<Path> logs, String text) throws Exception {
        long n = 0;
        for (Path log : logs) {
            n += Files.readAllLines(log).stream().filter(l -> l.contains(text)).count();
        }
        return n;
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "OUTBOX_RETENTION_COMPLETED=7",
                "OUTBOX_RETENTION_FAILED=7 days",
                "OUTBOX_RETENTION_UNROUTED=0d",
                "OUTBOX_RETENTION_INTERVAL=1h",
                "OUTBOX_RETENTION_BATCH_SIZE=0",
                "OUTBOX_RETENTION_DAYS=7"
            })
    void aBadRetentionSettingIsRefusedBeforeTheRelayStarts(String setting) throws Exception {
        Map<String, String> env = RelayCommandIT.env(db, rabbit, routes());
        String[] kv = setting.split("=", 2);
        env.put(kv[0], kv[1]);
        if (kv[0].equals("OUTBOX_RETENTION_BATCH_SIZE")) {
            env.put("OUTBOX_RETENTION_COMPLETED", "7d");
        }

        RelayCommandIT.Run run = RelayCommandIT.run(env, "relay", "--loop");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("outbox-relay: OUTBOX_RETENTION_").hasLineCount(1);
    }
}
