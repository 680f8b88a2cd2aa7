package dev.outbox.delivery.amqp;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.impl.DefaultExceptionHandler;
import java.security.NoSuchAlgorithmException;
import javax.net.ssl.SSLContext;

/**
 * The connection factory of the relay and the worker for an {@link AmqpAddress}, set field by field
 * (never through {@code ConnectionFactory.setUri}, which falls back to 127.0.0.1 and guest for a host
 * it cannot read). {@code amqps} verifies the broker's certificate and host name against the JVM's
 * trust store. amqp-client is an optional dependency of this module: only the relay and the worker,
 * which bring it, load this class.
 */
public final class AmqpFactories {

    private AmqpFactories() {}

    /**
     * {@code factory} with the {@link QuietExceptionHandler}: a copy when it has the client's default
     * handler, the same factory when its owner chose a handler of their own.
     */
    public static ConnectionFactory quiet(ConnectionFactory factory) {
        if (factory.getExceptionHandler().getClass() != DefaultExceptionHandler.class) {
            return factory;
        }
        ConnectionFactory copy = factory.clone();
        copy.setExceptionHandler(new QuietExceptionHandler());
        return copy;
    }

    /** A new factory for {@code address}, with the {@link QuietExceptionHandler}. */
    public static ConnectionFactory of(AmqpAddress address) {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setExceptionHandler(new QuietExceptionHandler());
        factory.setHost(address.host());
        factory.setPort(address.port());
        if (address.username() != null && address.password() != null) {
            factory.setUsername(address.username());
            factory.setPassword(address.password());
        }
        factory.setVirtualHost(address.virtualHost());
        if (address.heartbeatSeconds() != null) {
            factory.setRequestedHeartbeat(address.heartbeatSeconds());
        }
        if (address.connectionTimeoutMillis() != null) {
            factory.setConnectionTimeout(address.connectionTimeoutMillis());
        }
        if (address.channelMax() != null) {
            factory.setRequestedChannelMax(address.channelMax());
        }
        if (address.tls()) {
            try {
                factory.useSslProtocol(SSLContext.getDefault());
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("this JVM has no default TLS context", e);
            }
            factory.enableHostnameVerification();
        }
        return factory;
    }
}
