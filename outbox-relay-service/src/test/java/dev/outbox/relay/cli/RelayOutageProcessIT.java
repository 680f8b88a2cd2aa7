package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.Slow;
import dev.outbox.testing.TcpProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service as its own process through a database outage: {@code relay --loop} started while the
 * database is down waits for it, rides out a later outage, listens again and delivers what was
 * recorded meanwhile, each outage logged once; a fatal database error still exits 1 with one line.
 */
@Slow
class RelayOutageProcessIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @TempDir
    Path dir;

    private Path routes(String queue) throws Exception {
        return ChildRelay.refundRoutes(dir, queue);
    }

    private static void awaitDispatched(Tables tables, UUID event) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> tables.deliveriesOf(event).stream()
                        .anyMatch(d -> d.getStatus() == OutboxDeliveryStatus.dispatched));
    }

    /**
     * Waits for {@code text} in the process's log; fails showing the log. 60 s: a child JVM's start and its
     * first connect attempt took more than 30 s at load averages of 17–22 on 2 cores.
     */
    private static void awaitLog(Path log, String text) throws Exception {
        try {
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> Files.readString(log).contains(text));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("no '" + text + "' in the log:\n" + Files.readString(log), e);
        }
    }

    @Test
    void aLoopStartedWhileTheDatabaseIsDownWaitsForItAndRidesOutTheNextOutage() throws Exception {
        Path stderr = dir.resolve("stderr.log");
        try (TcpProxy proxy = TcpProxy.toJdbcUrl(db.server().jdbcUrl())) {
            proxy.down();
            ProcessBuilder pb = ChildRelay.command(List.of(), "relay", "--loop", "--sleep=3600")
                    .redirectError(stderr.toFile())
                    .redirectOutput(dir.resolve("stdout.log").toFile());
            Map<String, String> env = RelayCommandIT.env(db, rabbit, routes(rabbit.queue("refunds")));
            env.put("OUTBOX_JDBC_URL", proxy.jdbcUrl(db.server().jdbcUrl()));
            pb.environment().putAll(env);
            Process process = pb.start();
            try {
                Tables tables = new Tables(db);
                UUID early = tables.record(new OrderCancelled(1)).get(0);
                awaitLog(stderr, "database unavailable");
                Thread.sleep(1_000); // kept: time for the process to give up, which it must not
                assertThat(process.isAlive()).isTrue();

                proxy.up();
                awaitDispatched(tables, early);
                awaitLog(stderr, "listening on channel");
                Thread.sleep(
                        2_500); // the looks after the last pass that found work (10, 20 ... 640 ms) are over: it waits

                proxy.down(); // an outage while the relay waits: only the LISTEN connection notices
                UUID during = tables.record(new OrderCancelled(2)).get(0);
                Thread.sleep(2_000); // kept: the outage lasts 2 s
                proxy.up();
                long up = System.nanoTime();
                awaitDispatched(tables, during); // with a sleep of an hour: the relay listened again and caught up
                System.out.printf(
                        "outage-recovery: relay --loop --sleep=3600 process, idle, database down 2 s: delivered %d ms"
                                + " after it came back%n",
                        (System.nanoTime() - up) / 1_000_000);

                UUID after = tables.record(new OrderCancelled(3)).get(0);
                awaitDispatched(tables, after); // woken by the NOTIFY on the new LISTEN connection

                process.destroy();
                assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(process.exitValue()).isZero();
                List<String> log = Files.readAllLines(stderr);
                assertThat(log)
                        .filteredOn(line -> line.contains("database unavailable"))
                        .hasSize(1);
                assertThat(log)
                        .filteredOn(line -> line.contains("the database answers again"))
                        .hasSize(1);
                assertThat(log)
                        .filteredOn(line -> line.contains("lost the LISTEN connection"))
                        .hasSize(1);
                assertThat(log)
                        .filteredOn(line -> line.contains("listening on channel"))
                        .hasSize(2);
                assertThat(log).noneMatch(line -> line.contains("has been closed")); // no driver message
            } finally {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void aLoopOnAFatalDatabaseErrorExitsOneWithOneLine() throws Exception {
        Map<String, String> env = RelayCommandIT.env(db, rabbit, routes(rabbit.queue("fatal")));
        env.put("OUTBOX_SCHEMA", "no_such_schema");

        RelayCommandIT.Run run = RelayCommandIT.run(env, "relay", "--loop");

        assertThat(run.exitCode()).isEqualTo(1);
        // the start-up check names what is missing; a table lost while the loop runs is DatabaseOutageIT's
        assertThat(run.err())
                .startsWith("outbox-relay: the outbox tables are missing: schema no_such_schema does not exist")
                .hasLineCount(1);
    }
}
