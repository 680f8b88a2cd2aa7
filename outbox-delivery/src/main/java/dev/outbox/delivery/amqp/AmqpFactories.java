package dev.outbox.delivery.amqp;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.impl.DefaultExceptionHandler;
import java.security.NoSuchAlgorithmException;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The connection factory of the relay and the worker for an {@link AmqpAddress}, set field by field
 * (never through {@code ConnectionFactory.setUri}, which falls back to 127.0.0.1 and guest for a host
 * it cannot read). {@code amqps} verifies the broker's certificate against the JVM's trust store (or
 * the context its caller gives) and, unless its caller turns it off, that the certificate names the host. amqp-client is an optional dependency of this module: only the relay and the worker,
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
        return of(address, null, true);
    }

    /**
     * A new factory for {@code address}, with the {@link QuietExceptionHandler}; for {@code amqps}, TLS
     * through {@code tls} (null: the JVM's default context), checking that the broker's certificate
     * names the host unless {@code verifyHostname} is false.
     */
    public static ConnectionFactory of(AmqpAddress address, @Nullable SSLContext tls, boolean verifyHostname) {
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
            SSLContext context;
            try {
                context = tls != null ? tls : SSLContext.getDefault();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("this JVM has no default TLS context", e);
            }
            if (verifyHostname) {
                factory.useSslProtocol(context); // and checks the host name since amqp-client 5.4
            } else { // blocking IO, the client's default and ours (setSslContextFactory would check the host too)
                factory.setSocketFactory(context.getSocketFactory());
            }
        }
        return factory;
    }
}
