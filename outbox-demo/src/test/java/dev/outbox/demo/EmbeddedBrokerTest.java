package dev.outbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The demo's embedded broker keeps a job message as RabbitMQ would: the relay publishes each with
 * {@code expiration} = the route's delivery timeout in milliseconds, which Qpid alone would read as
 * a point in time long past, dropping the message on arrival (the demo then never ran a job).
 */
class EmbeddedBrokerTest {

    @Test
    void aMessageWithTheRelaysExpirationIsStillThereToConsume() throws Exception {
        try (EmbeddedBroker broker = EmbeddedBroker.start()) {
            ConnectionFactory factory = new ConnectionFactory();
            factory.setUri(broker.uri());
            try (Connection connection = factory.newConnection();
                    Channel channel = connection.createChannel()) {
                channel.queueDeclare("jobs", true, false, false, null);
                channel.confirmSelect();
                AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                        .expiration("30000")
                        .deliveryMode(2)
                        .build();
                channel.basicPublish("", "jobs", true, properties, "job".getBytes(StandardCharsets.UTF_8));
                channel.waitForConfirmsOrDie(10_000);

                GetResponse got = channel.basicGet("jobs", true);

                assertThat(got).as("the message, not expired on arrival").isNotNull();
                assertThat(new String(got.getBody(), StandardCharsets.UTF_8)).isEqualTo("job");
            }
        }
    }
}
