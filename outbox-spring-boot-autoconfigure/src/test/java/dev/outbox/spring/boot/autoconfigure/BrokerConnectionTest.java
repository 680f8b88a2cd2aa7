package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ConnectionFactory;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The broker of the worker and of the embedded relay from Boot's {@code spring.rabbitmq.*} keys, with Boot's defaults, unless
 * {@code outbox.worker.uri} (or {@code outbox.relay.uri}) is set.
 */
class BrokerConnectionTest {

    private static Binder binder(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties));
    }

    @Test
    void withoutSettingsConnectsWhereBootsRabbitDefaultsPoint() {
        ConnectionFactory factory = BrokerConnection.of("worker", null, binder(Map.of()), null);

        assertThat(factory.getHost()).isEqualTo("localhost");
        assertThat(factory.getPort()).isEqualTo(5672);
        assertThat(factory.getUsername()).isEqualTo("guest");
        assertThat(factory.getVirtualHost()).isEqualTo("/");
        assertThat(factory.isSSL()).isFalse();
        assertThat(factory.isAutomaticRecoveryEnabled()).isTrue();
    }

    @Test
    void readsHostPortCredentialsAndVirtualHostFromSpringRabbitmq() {
        ConnectionFactory factory = BrokerConnection.of(
                "worker",
                null,
                binder(Map.of(
                        "spring.rabbitmq.host", "rabbit.internal",
                        "spring.rabbitmq.port", "5673",
                        "spring.rabbitmq.username", "jobs",
                        "spring.rabbitmq.password", "s3cret",
                        "spring.rabbitmq.virtual-host", "orders")),
                null);

        assertThat(factory.getHost()).isEqualTo("rabbit.internal");
        assertThat(factory.getPort()).isEqualTo(5673);
        assertThat(factory.getUsername()).isEqualTo("jobs");
        assertThat(factory.getPassword()).isEqualTo("s3cret");
        assertThat(factory.getVirtualHost()).isEqualTo("orders");
    }

    @Test
    void sslEnabledUsesTlsOnBootsTlsPort() {
        ConnectionFactory factory =
                BrokerConnection.of("worker", null, binder(Map.of("spring.rabbitmq.ssl.enabled", "true")), null);

        assertThat(factory.isSSL()).isTrue();
        assertThat(factory.getPort()).isEqualTo(5671);
    }

    @Test
    void oneAddressInSpringRabbitmqAddressesWinsOverHostAndPort() {
        ConnectionFactory factory = BrokerConnection.of(
                "worker",
                null,
                binder(Map.of(
                        "spring.rabbitmq.host", "ignored",
                        "spring.rabbitmq.addresses", "amqp://jobs:s3cret@rabbit-1:5680/orders")),
                null);

        assertThat(factory.getHost()).isEqualTo("rabbit-1");
        assertThat(factory.getPort()).isEqualTo(5680);
        assertThat(factory.getUsername()).isEqualTo("jobs");
        assertThat(factory.getVirtualHost()).isEqualTo("orders");
    }

    @Test
    void severalAddressesFailNamingTheProperty() {
        assertThatThrownBy(() -> BrokerConnection.of(
                        "worker",
                        null,
                        binder(Map.of("spring.rabbitmq.addresses", "rabbit-1:5672,rabbit-2:5672")),
                        null))
                .hasMessageStartingWith(
                        "spring.rabbitmq.addresses: the outbox worker connects to one broker address, got 2");
    }

    @Test
    void outboxWorkerUriOverridesSpringRabbitmq() {
        ConnectionFactory factory = BrokerConnection.of(
                "worker",
                "amqps://w:p@other-broker/jobs",
                binder(Map.of("spring.rabbitmq.host", "rabbit.internal", "spring.rabbitmq.username", "jobs")),
                null);

        assertThat(factory.getHost()).isEqualTo("other-broker");
        assertThat(factory.getPort()).isEqualTo(5671);
        assertThat(factory.getUsername()).isEqualTo("w");
        assertThat(factory.getVirtualHost()).isEqualTo("jobs");
        assertThat(factory.isSSL()).isTrue();
    }

    @Test
    void aBadOutboxWorkerUriFailsNamingThePropertyWithoutRepeatingIt() {
        assertThatThrownBy(() -> BrokerConnection.of("worker", "http://user:secret@host", binder(Map.of()), null))
                .hasMessageStartingWith("outbox.worker.uri: must start with amqp://")
                .hasMessageNotContaining("secret");
    }

    @Test
    void theRelayReadsSpringRabbitmqToo() {
        ConnectionFactory factory =
                BrokerConnection.of("relay", null, binder(Map.of("spring.rabbitmq.host", "rabbit.internal")), null);

        assertThat(factory.getHost()).isEqualTo("rabbit.internal");
        assertThat(factory.getPort()).isEqualTo(5672);
    }

    @Test
    void outboxRelayUriOverridesSpringRabbitmqAndIsNamedInErrors() {
        ConnectionFactory factory = BrokerConnection.of(
                "relay",
                "amqp://r:p@relay-broker:5680/%2F",
                binder(Map.of("spring.rabbitmq.host", "rabbit.internal")),
                null);
        assertThat(factory.getHost()).isEqualTo("relay-broker");
        assertThat(factory.getPort()).isEqualTo(5680);

        assertThatThrownBy(() -> BrokerConnection.of("relay", "http://host", binder(Map.of()), null))
                .hasMessageStartingWith("outbox.relay.uri: must start with amqp://");
        assertThatThrownBy(() -> BrokerConnection.of(
                        "relay", null, binder(Map.of("spring.rabbitmq.addresses", "a:5672,b:5672")), null))
                .hasMessageContaining(
                        "the outbox relay connects to one broker address, got 2; name one, or set outbox.relay.uri");
    }
}
