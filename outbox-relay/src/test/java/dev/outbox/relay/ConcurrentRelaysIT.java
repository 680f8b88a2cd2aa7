package dev.outbox.relay;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.Slow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Several relays over the same tables: SKIP LOCKED claims, no delivery dispatched twice, no event lost. */
@Slow
class ConcurrentRelaysIT {

    static final int EVENTS = 20_000;
    static final int RELAYS = 4;

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @Test
    void fourRelaysDispatchEveryDeliveryOfTwentyThousandEventsExactlyOnce() throws Exception {
        Tables tables = new Tables(db);
        String queue = rabbit.queue("refunds");
        Routes routes = Routes.builder()
                .route(
                        "order.cancelled",
                        Route.job("refund", queue, RetrySchedule.seconds(60), Duration.ofSeconds(600)))
                .build();
        List<OutboxRelay> relays = new ArrayList<>();
        try (Broker broker = new Broker(rabbit)) {
            for (int i = 0; i < RELAYS; i++) {
                relays.add(OutboxRelay.builder()
                        .dataSource(db.dataSource())
                        .connectionFactory(rabbit.connectionFactory())
                        .tables(db.tables())
                        // no bound on the queue's depth: no consumer takes these 20,000 messages (BackpressureIT tests
                        // the bound)
                        .routes(routes)
                        .routeBatchSize(200)
                        .dispatchBatchSize(200)
                        .maxQueueDepth(0)
                        .build());
            }
            relays.forEach(OutboxRelay::start);
            for (int from = 0; from < EVENTS; from += 2_000) { // recorded while the relays run
                tables.recordAll(IntStream.range(from, from + 2_000)
                        .mapToObj(OrderCancelled::new)
                        .toList());
            }

            Awaitility.await()
                    .atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> tables.dsl()
                                    .fetchCount(
                                            OUTBOX_DELIVERIES,
                                            OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.dispatched))
                            == EVENTS);
            relays.forEach(OutboxRelay::close);

            assertThat(relays).allSatisfy(r -> assertThat(r.failure()).isEmpty());
            assertThat(tables.dsl().fetchCount(OUTBOX_EVENTS)).isEqualTo(EVENTS);
            assertThat(tables.dsl().fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ROUTED_AT.isNull()))
                    .isZero();
            assertThat(tables.dsl().fetchCount(OUTBOX_DELIVERIES)).isEqualTo(EVENTS);
            assertThat(tables.dsl()
                            .fetchCount(
                                    OUTBOX_DELIVERIES,
                                    OUTBOX_DELIVERIES
                                            .ATTEMPTS
                                            .eq(1)
                                            .and(OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.dispatched))))
                    .isEqualTo(EVENTS);
            assertThat(tables.dsl()
                            .select(DSL.countDistinct(OUTBOX_DELIVERIES.DISPATCH_ID))
                            .from(OUTBOX_DELIVERIES)
                            .fetchOne(0, int.class))
                    .isEqualTo(EVENTS);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> broker.messageCount(queue) == EVENTS);
        } finally {
            relays.forEach(OutboxRelay::close);
        }
    }
}
