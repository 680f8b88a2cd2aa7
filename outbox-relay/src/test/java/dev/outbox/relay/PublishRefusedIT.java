package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import dev.outbox.relay.Events.InvoiceSent;
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
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** T3: a return, a nack or a missing exchange sends that delivery alone back to pending (or to failed). */
class PublishRefusedIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static final PostgresSchemaExtension db = fixture.db;
    static final RabbitExtension rabbit = fixture.rabbit;

    static String jobs;
    static String once;
    static String healthy;
    static String fullExchange;
    static String fullQueue;
    static String missingExchange;

    final MutableClock clock = MutableClock.startingNow();
    Tables tables;
    OutboxRelay relay;

    @BeforeAll
    static void queues() throws Exception {
        jobs = fixture.queue("jobs");
        once = fixture.queue("once");
        healthy = fixture.queue("healthy");
        // an exchange whose only queue refuses every message: the broker nacks publishes routed to it
        fullExchange = rabbit.exchange("full");
        fullQueue = rabbit.queue("full");
        missingExchange = rabbit.exchange("missing");
        Channel ch = fixture.broker().channel();
        ch.exchangeDeclare(fullExchange, BuiltinExchangeType.FANOUT, true);
        ch.queueDeclare(fullQueue, true, false, false, Map.of("x-max-length", 0, "x-overflow", "reject-publish"));
        ch.queueBind(fullQueue, fullExchange, "");
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
                                        jobs,
                                        RetrySchedule.seconds(7, 30),
                                        Duration.ofSeconds(300)),
                                Route.job("audit", healthy, List.of(), Duration.ofSeconds(300)))
                        .route("order.cancelled", Route.job("refund", once, List.of(), Duration.ofSeconds(120)))
                        .route(
                                "invoice.sent",
                                Route.publish(
                                        "invoices",
                                        fullExchange,
                                        "invoice.sent",
                                        RetrySchedule.seconds(9),
                                        Duration.ofSeconds(60)),
                                Route.publish(
                                        "invoices-lost",
                                        missingExchange,
                                        "invoice.sent",
                                        RetrySchedule.seconds(11),
                                        Duration.ofSeconds(60)),
                                Route.job("archive", healthy, List.of(), Duration.ofSeconds(300)))
                        .build())
                .build());
    }

    @Test
    void aReturnedMessageGoesBackToPendingWithTheNextDelayAndTheRestOfTheBatchGoesOn() throws Exception {
        relay.runOnce(); // declares the queues
        fixture.broker().channel().queueDelete(jobs); // now a publish to it is unroutable: the broker returns it
        List<UUID> events =
                tables.recordAll(List.of(new OrderPlaced(1, BigDecimal.ONE), new OrderPlaced(2, BigDecimal.ONE)));

        PassResult result = relay.runOnce();

        assertThat(result.dispatched()).isEqualTo(4);
        assertThat(result.publishFailed()).isEqualTo(2);
        for (UUID event : events) {
            List<OutboxDeliveriesRecord> deliveries = tables.deliveriesOf(event);
            OutboxDeliveriesRecord audit = deliveries.get(0);
            OutboxDeliveriesRecord refused = deliveries.get(1);
            assertThat(refused.getJobType()).isEqualTo("send-confirmation");
            assertThat(refused.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
            assertThat(refused.getAttempts()).isEqualTo(1);
            assertThat(refused.getAvailableAt().toInstant())
                    .isEqualTo(clock.instant().plusSeconds(7));
            assertThat(refused.getDispatchedAt()).isNull();
            assertThat(refused.getDeliveryTimeoutAt()).isNull();
            assertThat(audit.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        }
        assertThat(fixture.broker().take(healthy, 2)).hasSize(2);
    }

    @Test
    void aReturnedMessageWithoutRetriesFailsWithPublishFailed() throws Exception {
        relay.runOnce();
        fixture.broker().channel().queueDelete(once);
        UUID event = tables.record(new OrderCancelled(1)).get(0);

        relay.runOnce();

        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.failed);
        assertThat(d.getFailureReason()).isEqualTo("publish_failed");
        assertThat(d.getFailedAt().toInstant()).isEqualTo(clock.instant());
    }

    @Test
    void theQueueOfAReturnedMessageIsDeclaredAgainForTheRetry() throws Exception {
        relay.runOnce();
        fixture.broker().channel().queueDelete(jobs);
        UUID event = tables.record(new OrderPlaced(3, BigDecimal.ONE)).get(0);
        relay.runOnce();
        clock.advance(java.time.Duration.ofSeconds(7));

        relay.runOnce();

        OutboxDeliveriesRecord d = tables.deliveriesOf(event).get(1);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(d.getAttempts()).isEqualTo(2);
        assertThat(fixture.broker().take(jobs, 1)).hasSize(1);
    }

    @Test
    void aNackAndAMissingExchangeEachFailOnlyTheirOwnDelivery() throws Exception {
        UUID event = tables.record(new InvoiceSent(1)).get(0);

        PassResult result = relay.runOnce();

        assertThat(result.dispatched()).isEqualTo(3);
        assertThat(result.publishFailed()).isEqualTo(2);
        List<OutboxDeliveriesRecord> deliveries = tables.deliveriesOf(event);
        OutboxDeliveriesRecord archive = deliveries.get(0);
        OutboxDeliveriesRecord nacked = deliveries.get(1);
        OutboxDeliveriesRecord lost = deliveries.get(2);
        assertThat(archive.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(nacked.getJobType()).isEqualTo("invoices");
        assertThat(nacked.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(nacked.getAvailableAt().toInstant())
                .isEqualTo(clock.instant().plusSeconds(9));
        assertThat(lost.getJobType()).isEqualTo("invoices-lost");
        assertThat(lost.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(lost.getAvailableAt().toInstant()).isEqualTo(clock.instant().plusSeconds(11));
        assertThat(fixture.broker().take(healthy, 1)).hasSize(1);
    }

    @Test
    void aChannelClosedByTheBrokerFailsWhatWasInFlightAndTheNextBatchGoesOutOnANewChannel() throws Exception {
        String doomed = rabbit.exchange("doomed");
        fixture.broker().channel().exchangeDeclare(doomed, BuiltinExchangeType.FANOUT, true);
        try (OutboxRelay r = fixture.relay(clock)
                .routes(Routes.builder()
                        .route(
                                "invoice.sent",
                                Route.publish("invoices", doomed, "", RetrySchedule.seconds(3), Duration.ofSeconds(60)))
                        .route("order.cancelled", Route.job("refund", healthy, List.of(), Duration.ofSeconds(120)))
                        .build())
                .build()) {
            tables.record(new InvoiceSent(1));
            r.runOnce(); // the exchange is checked and found
            fixture.broker()
                    .channel()
                    .exchangeDelete(doomed); // deleted while the relay trusts it: the publish closes the channel (404)
            UUID lost = tables.record(new InvoiceSent(2)).get(0);

            PassResult refused = r.runOnce();
            UUID later = tables.record(new OrderCancelled(3)).get(0);
            PassResult next = r.runOnce();

            assertThat(refused.publishFailed()).isEqualTo(1);
            OutboxDeliveriesRecord d = tables.delivery(lost);
            assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
            assertThat(d.getAvailableAt().toInstant()).isEqualTo(clock.instant().plusSeconds(3));
            assertThat(next.confirmed()).isEqualTo(1);
            assertThat(tables.delivery(later).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
            assertThat(fixture.broker().take(healthy, 1)).hasSize(1);
        }
    }

    @Test
    void aBrokerThatCannotBeReachedStopsThePassBeforeAnythingIsClaimed() {
        com.rabbitmq.client.ConnectionFactory nowhere = rabbit.connectionFactory();
        nowhere.setPort(1);
        UUID event = tables.record(new OrderCancelled(1)).get(0);
        try (OutboxRelay r = OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(nowhere)
                .tables(db.tables())
                .clock(clock)
                .routes(Routes.builder()
                        .route("order.cancelled", Route.job("refund", healthy, List.of(), Duration.ofSeconds(120)))
                        .build())
                .build()) {

            org.assertj.core.api.Assertions.assertThatThrownBy(r::runOnce)
                    .isInstanceOf(BrokerUnavailableException.class)
                    .hasMessageStartingWith("broker unreachable (");
        }
        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(d.getAttempts()).isZero();
    }
}
