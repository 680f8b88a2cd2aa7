package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.NewEvent;
import dev.outbox.delivery.DeliveryTransitions;
import dev.outbox.delivery.WorkerTransitions;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.MutableClock;
import java.math.BigDecimal;
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
                .routes(Routes.builder().route("order.placed", Route.job("ship", queue, List.of(), Duration.ofSeconds(300)).ordered()).build())
                .build()) {
            List<UUID> a = tables.recordAll(List.of(placed(1, "A"), placed(2, "A"), placed(3, "A")));
            List<UUID> b = tables.recordAll(List.of(placed(4, "B")));

            assertThat(relay.runOnce().confirmed()).isEqualTo(2);
            assertThat(dispatched()).containsOnlyKeys(a.get(0), b.get(0));
            assertThat(relay.runOnce().confirmed()).isZero(); // every key has its head in flight

            OutboxDeliveriesRecord head = tables.delivery(a.get(0));
            WorkerTransitions worker = new WorkerTransitions(new DeliveryTransitions(fixture.db.tables(), clock));
            assertThat(worker.complete(tables.dsl(), List.of(new WorkerTransitions.Dispatch(head.getId(), head.getDispatchId()))))
                    .containsExactly(head.getId());
            assertThat(relay.runOnce().confirmed()).isEqualTo(1);
            assertThat(dispatched()).containsOnlyKeys(a.get(1), b.get(0));
        }
    }

    private Map<UUID, OutboxDeliveryStatus> dispatched() {
        return tables.deliveries().stream().filter(d -> d.getStatus() == OutboxDeliveryStatus.dispatched)
                .collect(Collectors.toMap(OutboxDeliveriesRecord::getEventId, OutboxDeliveriesRecord::getStatus));
    }
}
