package dev.outbox.spring.boot.autoconfigure;

import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.delivery.amqp.AmqpAddress;
import dev.outbox.delivery.amqp.AmqpFactories;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;

/**
 * The broker of the worker and of the embedded relay: {@code outbox.worker.uri} (or
 * {@code outbox.relay.uri}) when set, else Boot's {@code spring.rabbitmq.*}
 * keys with Boot's defaults (localhost, 5672 or 5671 with TLS, guest/guest, virtual host {@code /}).
 * The keys are bound here rather than through Boot's {@code RabbitProperties}, whose package differs
 * between Boot 3.5 and 4.0 and which is absent without Spring AMQP: one code path for both lines, and
 * the worker and the relay keep amqp-client without Spring AMQP.
 */
final class BrokerConnection {

    private static final String RABBIT = "spring.rabbitmq.";

    private BrokerConnection() {}

    /**
     * A connection factory that recovers after a network failure, as the worker's own for an AMQP URI
     * (the relay copies it and reconnects by itself).
     *
     * @param part {@code worker} or {@code relay}: whose {@code outbox.<part>.uri} is {@code uri}
     */
    static ConnectionFactory of(String part, @Nullable String uri, Binder binder) {
        String property = "outbox." + part + ".uri";
        ConnectionFactory factory = AmqpFactories.of(uri != null ? AmqpAddress.parse(uri, property) : fromBoot(part, binder));
        factory.setAutomaticRecoveryEnabled(true);
        factory.setTopologyRecoveryEnabled(true);
        return factory;
    }

    /** The address of {@code spring.rabbitmq.*}; a problem names the property. */
    static AmqpAddress fromBoot(String part, Binder binder) {
        boolean tls = binder.bind(RABBIT + "ssl.enabled", Boolean.class).orElse(false);
        String host = binder.bind(RABBIT + "host", String.class).orElse("localhost");
        Integer port = binder.bind(RABBIT + "port", Integer.class).orElse(null);
        String username = binder.bind(RABBIT + "username", String.class).orElse("guest");
        String password = binder.bind(RABBIT + "password", String.class).orElse("guest");
        String virtualHost = binder.bind(RABBIT + "virtual-host", String.class).orElse("/");
        List<String> addresses = binder.bind(RABBIT + "addresses", Bindable.listOf(String.class)).orElse(List.of());
        if (addresses.size() > 1) {
            throw new IllegalArgumentException(RABBIT + "addresses: the outbox " + part + " connects to one broker address, got "
                    + addresses.size() + "; name one, or set outbox." + part + ".uri");
        }
        if (addresses.size() == 1) {
            String address = addresses.get(0).trim();
            if (address.startsWith("amqp://") || address.startsWith("amqps://")) {
                AmqpAddress parsed = AmqpAddress.parse(address, RABBIT + "addresses");
                // Boot: what the address leaves out comes from the other keys
                return parsed.username() != null ? parsed : new AmqpAddress(parsed.tls(), parsed.host(), parsed.port(),
                        username, password, parsed.virtualHost(), null, null, null);
            }
            int colon = address.lastIndexOf(':');
            host = colon < 0 ? address : address.substring(0, colon);
            port = colon < 0 ? null : parsePort(address.substring(colon + 1), RABBIT + "addresses");
        }
        int resolvedPort = port != null ? port : (tls ? 5671 : 5672);
        if (host.isBlank() || resolvedPort < 1 || resolvedPort > 65_535) {
            throw new IllegalArgumentException(RABBIT + (host.isBlank() ? "host must not be blank" : "port must be 1..65535, got " + resolvedPort));
        }
        return new AmqpAddress(tls, host, resolvedPort, username, password, virtualHost.isEmpty() ? "/" : virtualHost, null, null, null);
    }

    private static int parsePort(String text, String property) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + ": the port after the host is not a number", e);
        }
    }
}
