package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.delivery.DeliveryMessage;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** T4: a dispatch without a result past its delivery_timeout_at goes through retry-or-fail with {@code timeout}. */
class TimeoutIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();
    static final PostgresSchemaExtension db = fixture.db;
    static final RabbitExtension rabbit = fixture.rabbit;

    static String emails;
    static String payments;

    final MutableClock clock = MutableClock.startingNow();
    Tables tables;
    OutboxRelay relay;

    @BeforeAll
    static void queues() throws Exception {
        emails = fixture.queue("emails");
        payments = fixture.queue("payments");
    }

    @BeforeEach
    void setUp() throws Exception {
        tables = fixture.tables();
        relay = fixture.closeAfterEach(fixture.relay(clock)
                .routes(Routes.builder()
                        .route("order.placed", Route.job("send-confirmation", emails, RetrySchedule.seconds(5, 30), Duration.ofSeconds(300)))
                        .route("order.cancelled", Route.job("refund", payments, List.of(), Duration.ofSeconds(120)))
                        .build())
                .build());
    }

    @Test
    void leavesADispatchAloneUntilItsTimeout() {
        UUID event = tables.record(new OrderPlaced(1, BigDecimal.ONE)).get(0);
        relay.runOnce();
        clock.advance(Duration.ofSeconds(299));

        PassResult result = relay.runOnce();

        assertThat(result.timedOut()).isZero();
        assertThat(tables.delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
    }

    @Test
    void sendsAnOverdueDispatchBackToPendingWithTheNextDelayThenDispatchesItAgain() {
        UUID event = tables.record(new OrderPlaced(1, BigDecimal.ONE)).get(0);
        relay.runOnce();
        UUID firstDispatch = tables.delivery(event).getDispatchId();
        clock.advance(Duration.ofSeconds(300));

        PassResult result = relay.runOnce();

        assertThat(result.timedOut()).isEqualTo(1);
        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(d.getAttempts()).isEqualTo(1);
        assertThat(d.getAvailableAt().toInstant()).isEqualTo(clock.instant().plusSeconds(5));
        assertThat(d.getDispatchedAt()).isNull();
        assertThat(d.getDeliveryTimeoutAt()).isNull();

        clock.advance(Duration.ofSeconds(5));
        relay.runOnce();

        OutboxDeliveriesRecord again = tables.delivery(event);
        assertThat(again.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(again.getAttempts()).isEqualTo(2);
        assertThat(again.getDispatchId()).isNotEqualTo(firstDispatch);
        List<DeliveryMessage> messages = fixture.broker().take(emails, 2).stream().map(m -> DeliveryMessage.fromJson(m.getBody())).toList();
        assertThat(messages).extracting(DeliveryMessage::attempt).containsExactly(1, 2);
        assertThat(messages.get(1).dispatchId()).isEqualTo(again.getDispatchId());
    }

    @Test
    void failsAnOverdueLastAttemptWithTimeout() {
        UUID event = tables.record(new OrderCancelled(1)).get(0);
        relay.runOnce();
        clock.advance(Duration.ofSeconds(121));

        relay.runOnce();

        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.failed);
        assertThat(d.getFailureReason()).isEqualTo("timeout");
        assertThat(d.getFailedAt().toInstant()).isEqualTo(clock.instant());
    }

    @Test
    void sweepsInBatches() {
        OutboxRelay small = fixture.relay(clock).timeoutBatchSize(2)
                .routes(Routes.builder().route("order.cancelled", Route.job("refund", payments, List.of(), Duration.ofSeconds(120))).build())
                .build();
        try (small) {
            tables.recordAll(List.of(new OrderCancelled(1), new OrderCancelled(2), new OrderCancelled(3), new OrderCancelled(4),
                    new OrderCancelled(5)));
            small.runOnce();
            clock.advance(Duration.ofSeconds(120));

            assertThat(small.runOnce().timedOut()).isEqualTo(5);
        }
        assertThat(tables.deliveries()).allSatisfy(d -> assertThat(d.getFailureReason()).isEqualTo("timeout"));
    }
}
