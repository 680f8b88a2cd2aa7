package dev.outbox.relay;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import dev.outbox.api.NewEvent;
import dev.outbox.delivery.internal.DeliveryMessage;
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

/** T2: ready pending deliveries are claimed, committed, then published as job messages. */
class DispatchIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static final PostgresSchemaExtension db = fixture.db;
    static final RabbitExtension rabbit = fixture.rabbit;

    static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
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

    @Test
    void declaresTheQueuesOfJobRoutesDurable() throws Exception {
        relay.runOnce();

        AMQP.Queue.DeclareOk ok = fixture.broker().channel().queueDeclarePassive(emails);
        assertThat(ok.getQueue()).isEqualTo(emails);
        // declaring it again as durable, non-exclusive, non-auto-delete without arguments succeeds: same properties
        fixture.broker().channel().queueDeclare(emails, true, false, false, null);
    }

    @Test
    void declaresQuorumQueuesWhenConfigured() throws Exception {
        String quorum = rabbit.queue("quorum");
        try (OutboxRelay r = fixture.relay(clock)
                .queueType(QueueType.QUORUM)
                .routes(Routes.builder()
                        .route("order.cancelled", Route.job("refund", quorum, List.of(), Duration.ofSeconds(120)))
                        .build())
                .build()) {
            tables.record(new OrderCancelled(1));

            assertThat(r.runOnce().confirmed()).isEqualTo(1);
        }
        // the broker accepts the same declaration only from a quorum queue (a classic one would refuse it)
        try (com.rabbitmq.client.Channel ch = fixture.broker().newChannel()) {
            ch.queueDeclare(quorum, true, false, false, java.util.Map.of("x-queue-type", "quorum"));
            assertThat(ch.queueDeclarePassive(quorum).getMessageCount()).isEqualTo(1);
        }
    }

    @Test
    void dispatchesAReadyDeliveryAndPublishesTheJobMessage() throws Exception {
        UUID event = tables.record(
                        NewEvent.of(new OrderPlaced(1, BigDecimal.TEN)).withTraceparent(TRACEPARENT))
                .get(0);

        PassResult result = relay.runOnce();

        assertThat(result.routedEvents()).isEqualTo(1);
        assertThat(result.dispatched()).isEqualTo(1);
        assertThat(result.confirmed()).isEqualTo(1);
        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(d.getAttempts()).isEqualTo(1);
        assertThat(d.getDispatchId()).isNotNull();
        assertThat(d.getDispatchedAt().toInstant()).isEqualTo(clock.instant());
        assertThat(d.getDeliveryTimeoutAt().toInstant())
                .isEqualTo(clock.instant().plusSeconds(300));

        GetResponse message = fixture.broker().take(emails, 1).get(0);
        AMQP.BasicProperties props = message.getProps();
        assertThat(props.getDeliveryMode()).isEqualTo(2);
        assertThat(props.getMessageId()).isEqualTo(d.getDispatchId().toString());
        assertThat(props.getType()).isEqualTo("send-confirmation");
        assertThat(props.getContentType()).isEqualTo(DeliveryMessage.CONTENT_TYPE);
        // a message that waited in the queue as long as the delivery's timeout belongs to a superseded dispatch: the
        // broker drops it
        assertThat(props.getExpiration()).isEqualTo("300000");
        assertThat(message.getEnvelope().getExchange()).isEmpty();
        // the ids are in the body, the message id and the type; the only header is the trace context the event was
        // recorded with
        assertThat(props.getHeaders()).containsOnlyKeys(DeliveryMessage.HEADER_TRACEPARENT);
        assertThat(props.getHeaders().get(DeliveryMessage.HEADER_TRACEPARENT).toString())
                .isEqualTo(TRACEPARENT);

        DeliveryMessage body = DeliveryMessage.fromJson(message.getBody());
        assertThat(body)
                .isEqualTo(new DeliveryMessage(
                        event,
                        d.getId(),
                        d.getDispatchId(),
                        "order.placed",
                        "send-confirmation",
                        1,
                        false,
                        TRACEPARENT,
                        null));
        JsonNode json = new ObjectMapper().readTree(message.getBody());
        assertThat(json.has("payload")).as("the job message carries no payload").isFalse();
    }

    @Test
    void publishesAJobMessageWithoutTraceContextWithoutHeaders() throws Exception {
        UUID event = tables.record(new OrderPlaced(2, BigDecimal.ONE)).get(0);

        assertThat(relay.runOnce().confirmed()).isEqualTo(1);

        GetResponse message = fixture.broker().take(emails, 1).get(0);
        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(message.getProps().getHeaders()).isNull();
        assertThat(message.getProps().getMessageId())
                .isEqualTo(d.getDispatchId().toString());
        assertThat(DeliveryMessage.fromJson(message.getBody()))
                .isEqualTo(new DeliveryMessage(
                        event,
                        d.getId(),
                        d.getDispatchId(),
                        "order.placed",
                        "send-confirmation",
                        1,
                        false,
                        null,
                        null));
    }

    @Test
    void onePassRoutesPastFullBatchesOfEventsWithoutRouteAndNamesTheirType() {
        tables.recordAll(java.util.stream.IntStream.range(0, 5)
                .mapToObj(Events.InvoiceSent::new)
                .toList());
        UUID later = tables.record(new OrderCancelled(9)).get(0);
        try (OutboxRelay small = fixture.relay(clock)
                .routeBatchSize(2)
                .routes(Routes.builder()
                        .route("order.cancelled", Route.job("refund", payments, List.of(), Duration.ofSeconds(120)))
                        .build())
                .build()) {

            PassResult result = small.runOnce();

            assertThat(result.routedEvents()).isEqualTo(1);
            assertThat(result.unroutedEventTypes()).containsExactly("invoice.sent");
        }
        assertThat(tables.delivery(later).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(tables.deliveries()).hasSize(1);
    }

    @Test
    void marksTheOnlyAttemptOfARouteWithoutRetriesAsTheLast() {
        tables.record(new OrderCancelled(4));

        relay.runOnce();

        DeliveryMessage body = DeliveryMessage.fromJson(
                fixture.broker().take(payments, 1).get(0).getBody());
        assertThat(body.attempt()).isEqualTo(1);
        assertThat(body.lastAttempt()).isTrue();
    }

    @Test
    void leavesAPendingDeliveryThatIsNotDueYetAlone() {
        UUID event = tables.record(new OrderCancelled(5)).get(0);
        OutboxRelay routeOnly = fixture.relay(clock)
                .routes(Routes.builder()
                        .route("order.cancelled", Route.job("refund", payments, List.of(), Duration.ofSeconds(120)))
                        .build())
                .build();
        clock.advance(Duration.ofSeconds(60)); // routed (available) a minute after the relay's now below
        routeOnlyPass(routeOnly);
        clock.advance(Duration.ofSeconds(-60));
        tables.dsl()
                .update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.pending)
                .setNull(OUTBOX_DELIVERIES.DISPATCHED_AT)
                .setNull(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT)
                .set(OUTBOX_DELIVERIES.ATTEMPTS, 0)
                .execute();
        fixture.broker().take(payments, 1);

        PassResult result = relay.runOnce();

        assertThat(result.dispatched()).isZero();
        assertThat(tables.delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        clock.advance(Duration.ofSeconds(60));
        assertThat(relay.runOnce().dispatched()).isEqualTo(1);
    }

    private static void routeOnlyPass(OutboxRelay r) {
        try (r) {
            r.runOnce();
        }
    }

    @Test
    void dispatchesEachDeliveryOnceAcrossPasses() throws Exception {
        tables.recordAll(List.of(
                new OrderPlaced(1, BigDecimal.ONE),
                new OrderPlaced(2, BigDecimal.ONE),
                new OrderPlaced(3, BigDecimal.ONE)));

        relay.runOnce();
        PassResult second = relay.runOnce();

        assertThat(second.idle()).isTrue();
        assertThat(tables.deliveries()).allSatisfy(d -> {
            assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
            assertThat(d.getAttempts()).isEqualTo(1);
        });
        assertThat(fixture.broker().take(emails, 3)).hasSize(3);
        assertThat(fixture.broker().messageCount(emails)).isZero();
    }
}
