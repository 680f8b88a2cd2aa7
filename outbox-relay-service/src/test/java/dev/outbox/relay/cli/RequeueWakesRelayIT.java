package dev.outbox.relay.cli;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.admin.AdminFixture;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code failed requeue} wakes a looping relay as a recording does (issue 40, item 8): the relay
 * sleeps 5 minutes between passes when idle, and still dispatches the requeued delivery within
 * seconds, because the command sends a NOTIFY on the relays' channel ({@code OUTBOX_NOTIFY_CHANNEL},
 * here one of this test's own).
 */
class RequeueWakesRelayIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    static final String QUEUE = rabbit.queue("emails");
    static final String CHANNEL =
            "requeue_wake_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    private static String failed(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "failed";
        System.arraycopy(args, 0, command, 1, args.length);
        return Cli.succeed(db, Map.of("OUTBOX_NOTIFY_CHANNEL", CHANNEL), command);
    }

    @Test
    void aRequeuedDeliveryIsDispatchedAtOnceByARelaySleepingFiveMinutes() throws Exception {
        AdminFixture rows = new AdminFixture(db.dataSource(), db.tables());
        UUID delivery = rows.failed(
                "order.placed",
                "send-confirmation",
                QUEUE,
                "timeout",
                Instant.now().minusSeconds(60));
        Routes routes = Routes.builder()
                .route(
                        "order.placed",
                        Route.job("send-confirmation", QUEUE, RetrySchedule.seconds(60), Duration.ofSeconds(60)))
                .build();
        try (OutboxRelay relay = OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .routes(routes)
                .notifyChannel(CHANNEL)
                .sleep(Duration.ofMinutes(5))
                .build()) {
            relay.start();
            Thread.sleep(3_000); // its first passes find nothing to do: from now on it sleeps, listening

            assertThat(failed("requeue", "--all")).contains("requeued 1");

            await().atMost(Duration.ofSeconds(15))
                    .until(() -> "dispatched"
                            .equals(rows.mapped
                                    .select(OUTBOX_DELIVERIES.STATUS)
                                    .from(OUTBOX_DELIVERIES)
                                    .where(OUTBOX_DELIVERIES.ID.eq(delivery))
                                    .fetchSingle()
                                    .value1()
                                    .getLiteral()));
            assertThat(relay.failure()).isEmpty();
        }
    }
}
