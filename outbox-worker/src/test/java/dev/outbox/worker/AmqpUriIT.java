package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outbox.api.OutboxException;
import dev.outbox.delivery.amqp.AmqpAddress;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code amqpUri} connects to the host it names, literally, or not at all: never to the local broker by default. */
class AmqpUriIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    record Ping(String id) {}

    private static OutboxWorker worker(String amqpUri, String queue) {
        return OutboxWorker.builder()
                .dataSource(db.dataSource())
                .amqpUri(amqpUri)
                .tables(db.tables())
                .shutdownHook(false)
                .queue(queue, 1, 1)
                .handler("ping", Ping.class, (event, context) -> {})
                .build();
    }

    @Test
    void triesAnUnderscoreHostLiterallyAndNeverConsumesFromTheLocalBroker() throws Exception {
        String queue = declared(rabbit.queue("elsewhere")); // the relay declares queues; the worker never does
        int port = AmqpAddress.parse(rabbit.uri(), "test").port();

        try (OutboxWorker worker = worker("amqp://guest:guest@no_such_host.invalid:" + port + "/%2F", queue)) {
            assertThatThrownBy(worker::start)
                    .isInstanceOf(OutboxException.class)
                    .hasMessageContaining("UnknownHostException");
            assertThat(consumers(queue))
                    .as("the worker consumes from the local broker")
                    .isZero();
        }
    }

    @Test
    void consumesFromTheBrokerAValidUriNames() throws Exception {
        String queue = declared(rabbit.queue("here"));

        try (OutboxWorker worker = worker(rabbit.uri(), queue)) {
            worker.start();
            assertThat(consumers(queue)).isEqualTo(1);
        }
    }

    static String declared(String queue) throws Exception {
        try (Connection c = rabbit.connectionFactory().newConnection("test-setup");
                Channel ch = c.createChannel()) {
            ch.queueDeclare(queue, true, false, false, null);
        }
        return queue;
    }

    static int consumers(String queue) throws Exception {
        try (Connection c = rabbit.connectionFactory().newConnection("test-probe");
                Channel ch = c.createChannel()) {
            return ch.queueDeclarePassive(queue).getConsumerCount();
        }
    }
}
