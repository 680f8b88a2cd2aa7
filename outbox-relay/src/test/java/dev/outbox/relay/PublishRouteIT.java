package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.GetResponse;
import dev.outbox.api.NewEvent;
import dev.outbox.delivery.internal.DeliveryMessage;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Publish routes: the payload itself to an exchange, message id = event id, completed on the broker's confirm. */
class PublishRouteIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static final PostgresSchemaExtension db = fixture.db;
    static final RabbitExtension rabbit = fixture.rabbit;

    static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    static String exchange;
    static String subscriber;

    @BeforeAll
    static void queues() throws Exception {
        exchange = rabbit.exchange("orders");
        subscriber = rabbit.queue("billing-subscriber");
        fixture.broker().channel().exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true);
        fixture.broker().channel().queueDeclare(subscriber, true, false, false, null);
        fixture.broker().channel().queueBind(subscriber, exchange, "order.*");
    }

    @Test
    void publishesThePayloadToTheExchangeAndCompletesTheDeliveryOnConfirm() throws Exception {
        MutableClock clock = MutableClock.startingNow();
        Tables tables = fixture.tables();
        UUID event = tables.record(
                        NewEvent.of(new OrderPlaced(42, new BigDecimal("9.50"))).withTraceparent(TRACEPARENT))
                .get(0);
        try (OutboxRelay relay = fixture.relay(clock)
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.publish(
                                        "order-events",
                                        exchange,
                                        "order.placed",
                                        RetrySchedule.seconds(5),
                                        Duration.ofSeconds(60)))
                        .build())
                .build()) {

            PassResult result = relay.runOnce();

            assertThat(result.completed()).isEqualTo(1);
        }
        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.completed);
        assertThat(d.getCompletedAt().toInstant()).isEqualTo(clock.instant());
        assertThat(d.getDeliveryTimeoutAt()).isNull();
        assertThat(d.getAttempts()).isEqualTo(1);

        GetResponse message = fixture.broker().take(subscriber, 1).get(0);
        assertThat(message.getEnvelope().getExchange()).isEqualTo(exchange);
        assertThat(message.getEnvelope().getRoutingKey()).isEqualTo("order.placed");
        assertThat(message.getProps().getMessageId()).isEqualTo(event.toString());
        assertThat(message.getProps().getType()).isEqualTo("order.placed");
        assertThat(message.getProps().getDeliveryMode()).isEqualTo(2);
        assertThat(message.getProps()
                        .getHeaders()
                        .get(DeliveryMessage.HEADER_EVENT_ID)
                        .toString())
                .isEqualTo(event.toString());
        assertThat(message.getProps()
                        .getHeaders()
                        .get(DeliveryMessage.HEADER_EVENT_TYPE)
                        .toString())
                .isEqualTo("order.placed");
        assertThat(message.getProps()
                        .getHeaders()
                        .get(DeliveryMessage.HEADER_TRACEPARENT)
                        .toString())
                .isEqualTo(TRACEPARENT);
        JsonNode body = new ObjectMapper().readTree(message.getBody());
        assertThat(body.get("orderId").asLong()).isEqualTo(42);
        assertThat(body.get("total").decimalValue()).isEqualByComparingTo("9.50");
    }
}
