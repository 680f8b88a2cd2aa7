package dev.outbox.testing;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.testcontainers.rabbitmq.RabbitMQContainer;

/**
 * The RabbitMQ broker of this test JVM, resolved once: {@code OUTBOX_TEST_AMQP_URI}, then
 * 127.0.0.1:5672 with guest/guest, then Testcontainers when Docker is available. With none of these
 * the tests fail with a message that says how to provide one: a broker is never silently skipped.
 *
 * @param uri the broker's AMQP URI, e.g. {@code amqp://guest:guest@127.0.0.1:5672/%2F}
 * @param source where the broker came from, for messages
 */
public record TestRabbit(String uri, String source) {

    public static final String URI_ENV = "OUTBOX_TEST_AMQP_URI";
    static final String LOCAL_URI = "amqp://guest:guest@127.0.0.1:5672/%2F";

    private static @Nullable TestRabbit instance;

    /** The broker of this JVM, resolved on first use. */
    public static synchronized TestRabbit get() {
        if (instance == null) {
            instance = resolve();
        }
        return instance;
    }

    /** A new connection factory for the broker. */
    public ConnectionFactory connectionFactory() {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(URI.create(uri));
        } catch (Exception e) {
            throw new IllegalStateException("bad AMQP URI from " + source, e);
        }
        factory.setAutomaticRecoveryEnabled(false);
        return factory;
    }

    private static TestRabbit resolve() {
        String uri = System.getenv(URI_ENV);
        if (uri != null && !uri.isBlank()) {
            return new TestRabbit(uri, URI_ENV);
        }
        if (answers(LOCAL_URI)) {
            return new TestRabbit(LOCAL_URI, "127.0.0.1:5672");
        }
        if (TestPostgres.dockerAvailable()) {
            RabbitMQContainer container = new RabbitMQContainer("rabbitmq:3.13-management-alpine");
            container.start();
            Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "outbox-test-rabbit-stop"));
            return new TestRabbit(container.getAmqpUrl(), "Testcontainers");
        }
        throw new IllegalStateException("No RabbitMQ for the tests: set " + URI_ENV
                + " (e.g. amqp://guest:guest@host:5672/%2F), start one on 127.0.0.1:5672 with guest/guest"
                + " (rabbitmq-server -detached), or make Docker available for Testcontainers");
    }

    @SuppressWarnings("try") // the connection is opened only to see that the broker answers
    private static boolean answers(String uri) {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(URI.create(uri));
            factory.setConnectionTimeout(2_000);
            try (Connection ignored = factory.newConnection("outbox-test-probe")) {
                return true;
            }
        } catch (Exception e) {
            return false;
        }
    }
}
