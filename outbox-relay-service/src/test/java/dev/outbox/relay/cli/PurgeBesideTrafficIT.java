package dev.outbox.relay.cli;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.admin.OutboxAdmin;
import dev.outbox.admin.PurgeResult;
import dev.outbox.admin.Retention;
import dev.outbox.relay.Events.InvoiceSent;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.relay.Tables;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.OutboxWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Retention beside live traffic: a purge with ages of a millisecond runs over and over while events
 * are recorded, routed, dispatched and completed by 2 relays and a worker. Only finished rows may go:
 * every routed event's job must still run (a purged pending or dispatched delivery never would), and
 * the events without a route must all remain.
 */
class PurgeBesideTrafficIT {

    static final int EVENTS = 3_000;

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @Test
    void purgeLosesNothingThatIsNotFinished() throws Exception {
        Tables tables = new Tables(db);
        String queue = rabbit.queue("refunds");
        Routes routes = Routes.builder()
                .route("order.cancelled", Route.job("refund", queue, List.of(), Duration.ofSeconds(600)))
                .build();
        Set<Long> handled = ConcurrentHashMap.newKeySet();
        OutboxAdmin admin = OutboxAdmin.of(db.dataSource(), db.tables());
        Retention everythingFinished = Retention.of()
                .completed(Duration.ofMillis(1))
                .failed(Duration.ofMillis(1))
                .batchSize(50);
        List<OutboxRelay> relays = new ArrayList<>();
        AtomicBoolean purging = new AtomicBoolean(true);
        AtomicLong purged = new AtomicLong();
        try (OutboxWorker worker = OutboxWorker.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .queue(queue, 4, 200)
                .handler("refund", OrderCancelled.class, (event, context) -> handled.add(event.orderId()))
                .build()) {
            worker.start();
            for (int i = 0; i < 2; i++) {
                relays.add(OutboxRelay.builder()
                        .dataSource(db.dataSource())
                        .connectionFactory(rabbit.connectionFactory())
                        .tables(db.tables())
                        .routes(routes)
                        .routeBatchSize(100)
                        .dispatchBatchSize(100)
                        .build());
            }
            relays.forEach(OutboxRelay::start);
            Thread purger = new Thread(
                    () -> {
                        while (purging.get()) {
                            PurgeResult r = admin.purge(everythingFinished, false);
                            purged.addAndGet(r.completed());
                        }
                    },
                    "purger");
            purger.start();
            List<UUID> unrouted = new ArrayList<>();
            for (int from = 0; from < EVENTS; from += 100) {
                tables.recordAll(IntStream.range(from, from + 100)
                        .mapToObj(OrderCancelled::new)
                        .toList());
                unrouted.addAll(tables.record(new InvoiceSent(from)));
            }

            Awaitility.await()
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> handled.size() == EVENTS);
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> tables.dsl().fetchCount(OUTBOX_DELIVERIES) == 0);
            purging.set(false);
            purger.join(30_000);
            relays.forEach(OutboxRelay::close);

            assertThat(relays).allSatisfy(r -> assertThat(r.failure()).isEmpty());
            assertThat(handled).hasSize(EVENTS);
            assertThat(purged.get())
                    .as("every delivery was purged once completed, while traffic ran")
                    .isEqualTo(EVENTS);
            assertThat(tables.dsl().select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).fetch(OUTBOX_EVENTS.ID))
                    .as("left: the unrouted events, all of them")
                    .containsExactlyInAnyOrderElementsOf(unrouted);
        } finally {
            purging.set(false);
            relays.forEach(OutboxRelay::close);
        }
    }
}
