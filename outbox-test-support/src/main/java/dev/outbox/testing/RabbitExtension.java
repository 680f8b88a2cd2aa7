package dev.outbox.testing;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * RabbitMQ for one test class: names of queues and exchanges unique to the class, deleted after it.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RabbitExtension rabbit = new RabbitExtension();
 * String queue = rabbit.queue("emails"); // e.g. "t-3f2a9c-emails"; deleted after the class
 * }</pre>
 */
public final class RabbitExtension implements BeforeAllCallback, AfterAllCallback {

    private final String prefix = "t-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    private final List<String> queues = new CopyOnWriteArrayList<>();
    private final List<String> exchanges = new CopyOnWriteArrayList<>();

    @Override
    public void beforeAll(ExtensionContext context) {
        TestRabbit.get(); // fail early, with the message that says how to provide a broker
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try (Connection connection = connectionFactory().newConnection("outbox-test-cleanup")) {
            for (String queue : queues) {
                try (Channel channel = connection.createChannel()) {
                    channel.queueDelete(queue);
                }
            }
            for (String exchange : exchanges) {
                try (Channel channel = connection.createChannel()) {
                    channel.exchangeDelete(exchange);
                }
            }
        }
    }

    /** A queue name unique to this class, to be deleted after it (the test declares it, or the code under test does). */
    public String queue(String name) {
        String unique = prefix + name;
        queues.add(unique);
        return unique;
    }

    /** An exchange name unique to this class, to be deleted after it. */
    public String exchange(String name) {
        String unique = prefix + name;
        exchanges.add(unique);
        return unique;
    }

    /** The broker's URI. */
    public String uri() {
        return TestRabbit.get().uri();
    }

    /** A new connection factory for the broker (automatic recovery off). */
    public ConnectionFactory connectionFactory() {
        return TestRabbit.get().connectionFactory();
    }
}
