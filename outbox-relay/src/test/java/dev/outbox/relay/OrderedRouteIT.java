package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.NewEvent;
import dev.outbox.delivery.internal.DeliveryTransitions;
import dev.outbox.delivery.internal.FailureReason;
import dev.outbox.delivery.internal.WorkerTransitions;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An ordered job route through the relay's passes: one message per key in flight, the next after the head completes. */
class OrderedRouteIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    final MutableClock clock = MutableClock.startingNow();
    Tables tables;
    String queue;

    @BeforeEach
    void setUp() throws Exception {
        tables = fixture.tables();
        queue = fixture.queue("ordered");
    }

    private static NewEvent placed(long order, String key) {
        return NewEvent.of(new OrderPlaced(order, BigDecimal.ONE)).withOrderingKey(key);
    }

    @Test
    void aPassSendsOnlyTheHeadOfEachKeyAndTheNextAfterItCompletes() throws Exception {
        try (OutboxRelay relay = fixture.relay(clock)
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.job("ship", queue, List.of(), Duration.ofSeconds(300))
                                        .ordered())
                        .build())
                .build()) {
            List<UUID> a = tables.recordAll(List.of(placed(1, "A"), placed(2, "A"), placed(3, "A")));
            List<UUID> b = tables.recordAll(List.of(placed(4, "B")));

            assertThat(relay.runOnce().confirmed()).isEqualTo(2);
            assertThat(dispatched()).containsOnlyKeys(a.get(0), b.get(0));
            assertThat(relay.runOnce().confirmed()).isZero(); // every key has its head in flight

            OutboxDeliveriesRecord head = tables.delivery(a.get(0));
            WorkerTransitions worker = new WorkerTransitions(new DeliveryTransitions(fixture.db.tables(), clock));
            assertThat(worker.complete(
                            tables.dsl(), List.of(new WorkerTransitions.Dispatch(head.getId(), head.getDispatchId()))))
                    .containsExactly(head.getId());
            assertThat(relay.runOnce().confirmed()).isEqualTo(1);
            assertThat(dispatched()).containsOnlyKeys(a.get(1), b.get(0));
        }
    }

    @Test
    void aKeyBlockedOnItsRouteIsCountedInStatusAndTheMeterAndWarnedOnce() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        try (OutboxRelay relay = fixture.relay(clock)
                .meterRegistry(registry)
                .gaugeInterval(Duration.ofSeconds(1))
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.job("ship", queue, List.of(), Duration.ofSeconds(300))
                                        .ordered())
                        .build())
                .build()) {
            List<UUID> a = tables.recordAll(List.of(placed(1, "A"), placed(2, "A")));
            List<UUID> b = tables.recordAll(List.of(placed(3, "B"), placed(4, "B")));
            assertThat(relay.runOnce().confirmed()).isEqualTo(2);

            OutboxDeliveriesRecord head = tables.delivery(a.get(0));
            WorkerTransitions worker = new WorkerTransitions(new DeliveryTransitions(fixture.db.tables(), clock));
            assertThat(worker.fail(
                            tables.dsl(),
                            new WorkerTransitions.Dispatch(head.getId(), head.getDispatchId()),
                            FailureReason.JOB_FAILED))
                    .isTrue();
            clock.advance(Duration.ofSeconds(90));

            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            try {
                relay.runOnce();
                relay.runOnce();
            } finally {
                System.setErr(stderr);
            }
            assertThat(err.toString(StandardCharsets.UTF_8)
                            .lines()
                            .filter(l -> l.contains("key A is blocked on route ship")))
                    .as("one WARNING for the blocked key over two passes")
                    .hasSize(1)
                    .first()
                    .asString()
                    .contains("WARN", "queue " + queue, "delivery " + head.getId(), "job_failed", "blocked requeue");
            assertThat(dispatched())
                    .as("key A waits behind its failed head; B goes on")
                    .doesNotContainKey(a.get(1));

            OutboxStatus status = OutboxStatus.read(fixture.db.dataSource(), fixture.db.tables(), clock);
            assertThat(status.blockedKeys()).hasSize(1);
            OutboxStatus.BlockedRoute blocked = status.blockedKeys().get(0);
            assertThat(blocked.route()).isEqualTo("ship");
            assertThat(blocked.queue()).isEqualTo(queue);
            assertThat(blocked.keys()).isEqualTo(1);
            assertThat(blocked.oldestKey()).isEqualTo("A");
            assertThat(blocked.oldestAge()).isEqualTo(Duration.ofSeconds(90));
            assertThat(status.toTable()).contains("blocked keys: 1").containsPattern("ship +" + queue + " +1 +90s A");

            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(registry.find("outbox.relay.keys.blocked")
                                    .tags("route", "ship", "queue", queue)
                                    .gauge())
                            .isNotNull()
                            .extracting(g -> g.value())
                            .isEqualTo(1.0));

            new dev.outbox.delivery.internal.OperatorTransitions(fixture.db.tables(), clock)
                    .skip(tables.dsl(), List.of(head.getId()));
            assertThat(OutboxStatus.read(fixture.db.dataSource(), fixture.db.tables(), clock)
                            .blockedKeys())
                    .isEmpty();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> registry.find("outbox.relay.keys.blocked")
                                    .tags("route", "ship", "queue", queue)
                                    .gauge()
                                    .value()
                            == 0.0);
        } finally {
            System.setErr(stderr);
        }
    }

    private Map<UUID, OutboxDeliveryStatus> dispatched() {
        return tables.deliveries().stream()
                .filter(d -> d.getStatus() == OutboxDeliveryStatus.dispatched)
                .collect(Collectors.toMap(OutboxDeliveriesRecord::getEventId, OutboxDeliveriesRecord::getStatus));
    }
}
