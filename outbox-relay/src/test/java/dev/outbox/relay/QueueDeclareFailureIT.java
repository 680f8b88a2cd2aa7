package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One route's queue cannot be declared (it exists with other arguments: PRECONDITION_FAILED): only
 * its own deliveries fail, with a reason of their own; the others go out; the declaration is tried
 * again later, not on every batch.
 */
class QueueDeclareFailureIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static final PostgresSchemaExtension db = fixture.db;
    static final RabbitExtension rabbit = fixture.rabbit;

    static String healthy;

    final MutableClock clock = MutableClock.startingNow();
    String broken;
    Tables tables;
    OutboxRelay relay;

    @BeforeAll
    static void queues() throws Exception {
        healthy = fixture.queue("healthy");
    }

    @BeforeEach
    void setUp() throws Exception {
        tables = fixture.tables();
        broken = rabbit.queue("broken-" + UUID.randomUUID().toString().substring(0, 8));
        fixture.broker()
                .channel()
                .queueDeclare(broken, true, false, false, Map.of("x-max-length", 5)); // the relay declares it without
        relay = fixture.closeAfterEach(fixture.relay(clock)
                .routes(Routes.builder()
                        .route(
                                "order.cancelled",
                                Route.job("refund", broken, List.of(), Duration.ofSeconds(120)),
                                Route.job("audit", healthy, List.of(), Duration.ofSeconds(120)))
                        .build())
                .build());
    }

    @Test
    void aQueueThatCannotBeDeclaredFailsOnlyItsOwnDeliveriesWithAReasonOfTheirOwn() {
        UUID event = tables.record(new OrderCancelled(1)).get(0);

        PassResult result = relay.runOnce();

        assertThat(result.dispatched()).isEqualTo(2);
        assertThat(result.confirmed()).isEqualTo(1);
        List<OutboxDeliveriesRecord> deliveries = tables.deliveriesOf(event);
        OutboxDeliveriesRecord audit = deliveries.get(0);
        OutboxDeliveriesRecord refund = deliveries.get(1);
        assertThat(audit.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(refund.getStatus()).isEqualTo(OutboxDeliveryStatus.failed);
        assertThat(refund.getFailureReason()).isEqualTo("queue_declare_failed");
        assertThat(fixture.broker().take(healthy, 1)).hasSize(1);
    }

    @Test
    void theBrokenQueueIsDeclaredAgainLaterNotOnEveryBatch() throws Exception {
        tables.record(new OrderCancelled(1));
        relay.runOnce();
        fixture.broker().channel().queueDelete(broken); // repaired by the operator
        UUID soon = tables.record(new OrderCancelled(2)).get(0);

        relay.runOnce(); // within the retry window: not asked again

        assertThat(tables.deliveriesOf(soon).get(1).getFailureReason()).isEqualTo("queue_declare_failed");

        clock.advance(Duration.ofSeconds(31));
        UUID later = tables.record(new OrderCancelled(3)).get(0);
        PassResult result = relay.runOnce();

        assertThat(result.confirmed()).isEqualTo(2);
        assertThat(tables.deliveriesOf(later).get(1).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(fixture.broker().messageCount(broken)).isEqualTo(1);
    }
}
