package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.outbox.delivery.internal.Claimed;
import dev.outbox.delivery.internal.DeliveryMessage;
import dev.outbox.delivery.internal.RelayTransitions;
import dev.outbox.relay.Events.InvoiceSent;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.RelayFixture;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A relay that dies between its database commit and the broker (or between the broker's confirm and
 * the database) loses nothing: the dispatch times out and the next relay sends it again — a job that
 * never reached a worker without counting the attempt (T4u), a publish route through retry-or-fail (T4).
 */
class CrashRecoveryIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static final PostgresSchemaExtension db = fixture.db;
    static final RabbitExtension rabbit = fixture.rabbit;

    static String payments;
    static String exchange;
    static String subscriber;

    final MutableClock clock = MutableClock.startingNow();
    Tables tables;
    Routes routes;

    @BeforeAll
    static void queues() throws Exception {
        payments = rabbit.queue("payments");
        exchange = rabbit.exchange("invoices");
        subscriber = rabbit.queue("invoice-subscriber");
        fixture.broker().channel().exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, true);
        fixture.broker().channel().queueDeclare(subscriber, true, false, false, null);
        fixture.broker().channel().queueBind(subscriber, exchange, "invoice.sent");
    }

    @BeforeEach
    void setUp() throws Exception {
        tables = fixture.tables();
        routes = Routes.builder()
                .route(
                        "order.cancelled",
                        Route.job("refund", payments, RetrySchedule.seconds(5), Duration.ofSeconds(120)))
                .route(
                        "invoice.sent",
                        Route.publish(
                                "invoices", exchange, "invoice.sent", RetrySchedule.seconds(5), Duration.ofSeconds(60)))
                .build();
    }

    private OutboxRelay relay() {
        return fixture.relay(clock).routes(routes).build();
    }

    /** What a relay commits before it publishes: routed and claimed. */
    private List<Claimed> routeAndClaim() {
        RelayTransitions transitions = new RelayTransitions(db.tables(), routes.toRouteTable(), clock);
        tables.dsl().transaction(tx -> transitions.route(tx.dsl(), 500, null));
        return tables.dsl().transactionResult(tx -> transitions.claim(tx.dsl(), 500));
    }

    @Test
    void aJobClaimedAndCommittedButNeverPublishedIsSentAfterItsTimeoutAsTheSameAttempt() throws Exception {
        fixture.broker().purge(payments);
        UUID event = tables.record(new OrderCancelled(1)).get(0);
        List<Claimed> claimed = routeAndClaim(); // ... and the relay dies here
        assertThat(claimed).hasSize(1);
        assertThat(fixture.broker().messageCount(payments)).isZero();

        try (OutboxRelay next = relay()) {
            clock.advance(Duration.ofSeconds(120));
            assertThat(next.runOnce().timedOut()).isEqualTo(1);
            // no worker ever took it: back to pending at once (T4u), not after the retry delay
            assertThat(next.runOnce().dispatched()).isEqualTo(1);
        }

        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(d.getAttempts())
                .as("the attempt that never reached a worker is not counted")
                .isEqualTo(1);
        assertThat(d.getUnstartedTimeouts()).isEqualTo(1);
        DeliveryMessage message = DeliveryMessage.fromJson(
                fixture.broker().take(payments, 1).get(0).getBody());
        assertThat(message.eventId()).isEqualTo(event);
        assertThat(message.attempt()).isEqualTo(1);
        assertThat(message.dispatchId()).isEqualTo(d.getDispatchId());
        assertThat(message.lastAttempt()).isFalse();
    }

    @Test
    void aPublishConfirmedButNeverMarkedCompletedIsPublishedAgainAndCompleted() throws Exception {
        fixture.broker().purge(subscriber);
        UUID event = tables.record(new InvoiceSent(1)).get(0);
        Claimed claimed = routeAndClaim().get(0);
        try (Channel ch = fixture.broker().newChannel()) { // the relay publishes, the broker confirms ...
            ch.confirmSelect();
            ch.basicPublish(
                    exchange,
                    "invoice.sent",
                    true,
                    new AMQP.BasicProperties.Builder()
                            .deliveryMode(2)
                            .messageId(event.toString())
                            .build(),
                    claimed.payload().getBytes(StandardCharsets.UTF_8));
            ch.waitForConfirmsOrDie(5_000);
        } // ... and the relay dies before it marks the delivery completed

        try (OutboxRelay next = relay()) {
            clock.advance(Duration.ofSeconds(60));
            assertThat(next.runOnce().timedOut()).isEqualTo(1);
            clock.advance(Duration.ofSeconds(5));
            assertThat(next.runOnce().completed()).isEqualTo(1);
        }

        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.completed);
        assertThat(d.getAttempts()).isEqualTo(2);
        List<GetResponse> messages = fixture.broker().take(subscriber, 2);
        // at least once: the subscriber sees it twice, with the same message id to deduplicate on
        assertThat(messages)
                .extracting(m -> m.getProps().getMessageId())
                .containsExactly(event.toString(), event.toString());
    }
}
