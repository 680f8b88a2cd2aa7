package dev.outbox.delivery.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.ConnectionFactory;
import org.junit.jupiter.api.Test;

/** The connection factory carries every field of the address, and {@code amqps} turns TLS on. */
class AmqpFactoriesTest {

    @Test
    void setsEveryFieldOfTheAddress() {
        ConnectionFactory f = AmqpFactories.of(AmqpAddress.parse(
                "amqp://relay:pw@bad_rabbit:5999/prod?heartbeat=15&connection_timeout=3000&channel_max=32", "amqpUri"));

        assertThat(f.getHost()).isEqualTo("bad_rabbit");
        assertThat(f.getPort()).isEqualTo(5999);
        assertThat(f.getUsername()).isEqualTo("relay");
        assertThat(f.getPassword()).isEqualTo("pw");
        assertThat(f.getVirtualHost()).isEqualTo("prod");
        assertThat(f.getRequestedHeartbeat()).isEqualTo(15);
        assertThat(f.getConnectionTimeout()).isEqualTo(3000);
        assertThat(f.getRequestedChannelMax()).isEqualTo(32);
        assertThat(f.isSSL()).isFalse();
    }

    @Test
    void turnsTlsOnForAmqps() {
        ConnectionFactory f = AmqpFactories.of(AmqpAddress.parse("amqps://rabbit", "amqpUri"));

        assertThat(f.isSSL()).isTrue();
        assertThat(f.getPort()).isEqualTo(5671);
        assertThat(f.getVirtualHost()).isEqualTo("/");
        assertThat(f.getUsername()).isEqualTo("guest");
    }
}
