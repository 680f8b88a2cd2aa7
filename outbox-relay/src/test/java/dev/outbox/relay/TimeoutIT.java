package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.delivery.internal.DeliveryMessage;
import dev.outbox.delivery.internal.RelayTransitions;
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

/**
 * T4: a job that a worker picked up (T2s) and whose result is overdue goes through retry-or-fail with
 * {@code timeout}; T4u: a dispatch no worker picked up in time goes back to pending without counting
 * an attempt, until {@link RelayTransitions#MAX_UNSTARTED_TIMEOUTS}.
 */
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
                        .route(
                                "order.placed",
                                Route.job(
                                        "send-confirmation",
                                        emails,
                                        RetrySchedule.seconds(5, 30),
                                        Duration.ofSeconds(300)))
                        .route("order.cancelled", Route.job("refund", payments, List.of(), Duration.ofSeconds(120)))
                        .build())
                .build());
    }

    /** A worker took the messages of every dispatched delivery now (T2s, as the worker writes it). */
    private void pickedUp() {
        assertThat(tables.pickUp(clock, d -> true)).isPositive();
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
        pickedUp();
        UUID firstDispatch = tables.delivery(event).getDispatchId();
        clock.advance(Duration.ofSeconds(300));

        PassResult result = relay.runOnce();

        assertThat(result.timedOut()).isEqualTo(1);
        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(d.getAttempts()).isEqualTo(1);
        assertThat(d.getAvailableAt().toInstant()).isEqualTo(clock.instant().plusSeconds(5));
        assertThat(d.getDispatchedAt()).isNull();
        assertThat(d.getStartedAt()).isNull();
        assertThat(d.getDeliveryTimeoutAt()).isNull();

        clock.advance(Duration.ofSeconds(5));
        relay.runOnce();

        OutboxDeliveriesRecord again = tables.delivery(event);
        assertThat(again.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(again.getAttempts()).isEqualTo(2);
        assertThat(again.getDispatchId()).isNotEqualTo(firstDispatch);
        List<DeliveryMessage> messages = fixture.broker().take(emails, 2).stream()
                .map(m -> DeliveryMessage.fromJson(m.getBody()))
                .toList();
        assertThat(messages).extracting(DeliveryMessage::attempt).containsExactly(1, 2);
        assertThat(messages.get(1).dispatchId()).isEqualTo(again.getDispatchId());
    }

    @Test
    void failsAnOverdueLastAttemptWithTimeout() {
        UUID event = tables.record(new OrderCancelled(1)).get(0);
        relay.runOnce();
        pickedUp();
        clock.advance(Duration.ofSeconds(121));

        relay.runOnce();

        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.failed);
        assertThat(d.getFailureReason()).isEqualTo("timeout");
        assertThat(d.getFailedAt().toInstant()).isEqualTo(clock.instant());
        assertThat(d.getStartedAt()).as("kept: the handler ran").isNotNull();
    }

    @Test
    void leavesAPickedUpJobAloneUntilItsTimeoutCountedFromItsStart() {
        UUID event = tables.record(new OrderCancelled(1)).get(0);
        relay.runOnce();
        clock.advance(Duration.ofSeconds(100));
        pickedUp(); // waited 100 s in the queue: it has 120 s from now
        clock.advance(Duration.ofSeconds(119));

        assertThat(relay.runOnce().timedOut()).isZero();
        assertThat(tables.delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);

        clock.advance(Duration.ofSeconds(1));
        relay.runOnce();
        assertThat(tables.delivery(event).getFailureReason()).isEqualTo("timeout");
    }

    @Test
    void sendsADispatchNoWorkerTookBackToPendingWithoutCountingAnAttemptThenAgain() {
        UUID event = tables.record(new OrderCancelled(1)).get(0); // no retry left after the first attempt
        relay.runOnce();
        OutboxDeliveriesRecord first = tables.delivery(event);
        clock.advance(Duration.ofSeconds(120));

        assertThat(relay.runOnce().timedOut()).isEqualTo(1);

        OutboxDeliveriesRecord back = tables.delivery(event);
        assertThat(back.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(back.getAttempts())
                .as("the attempt that never ran is not counted")
                .isZero();
        assertThat(back.getAvailableAt()).as("kept: claimed first again").isEqualTo(first.getAvailableAt());

        relay.runOnce();

        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(d.getAttempts()).isEqualTo(1);
        assertThat(d.getUnstartedTimeouts()).isEqualTo(1);
        assertThat(d.getDispatchId()).isNotEqualTo(first.getDispatchId());
        List<DeliveryMessage> messages = fixture.broker().take(payments, 2).stream()
                .map(m -> DeliveryMessage.fromJson(m.getBody()))
                .toList();
        assertThat(messages).extracting(DeliveryMessage::attempt).containsExactly(1, 1);
        assertThat(messages).extracting(DeliveryMessage::lastAttempt).containsExactly(true, true);
    }

    @Test
    void failsADeliveryThatNoWorkerTookPastTheBoundWithNeverStarted() {
        UUID event = tables.record(new OrderCancelled(1)).get(0);
        relay.runOnce();
        tables.dsl()
                .update(dev.outbox.schema.Tables.OUTBOX_DELIVERIES)
                .set(
                        dev.outbox.schema.Tables.OUTBOX_DELIVERIES.UNSTARTED_TIMEOUTS,
                        RelayTransitions.MAX_UNSTARTED_TIMEOUTS)
                .execute();
        clock.advance(Duration.ofSeconds(120));

        relay.runOnce();

        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.failed);
        assertThat(d.getFailureReason()).isEqualTo("never_started");
        assertThat(d.getStartedAt()).isNull();
    }

    @Test
    void sweepsInBatches() {
        OutboxRelay small = fixture.relay(clock)
                .timeoutBatchSize(2)
                .routes(Routes.builder()
                        .route("order.cancelled", Route.job("refund", payments, List.of(), Duration.ofSeconds(120)))
                        .build())
                .build();
        try (small) {
            tables.recordAll(List.of(
                    new OrderCancelled(1),
                    new OrderCancelled(2),
                    new OrderCancelled(3),
                    new OrderCancelled(4),
                    new OrderCancelled(5)));
            small.runOnce();
            pickedUp();
            clock.advance(Duration.ofSeconds(120));

            assertThat(small.runOnce().timedOut()).isEqualTo(5);
        }
        assertThat(tables.deliveries())
                .allSatisfy(d -> assertThat(d.getFailureReason()).isEqualTo("timeout"));
    }
}
