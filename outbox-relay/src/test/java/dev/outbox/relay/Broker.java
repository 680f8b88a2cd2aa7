package dev.outbox.relay;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.outbox.testing.RabbitExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;

/** A plain amqp-client connection for the tests: what a consumer would see. */
public final class Broker implements AutoCloseable {

    private final Connection connection;
    private final Channel channel;

    public Broker(RabbitExtension rabbit) throws Exception {
        this.connection = rabbit.connectionFactory().newConnection("outbox-relay-test");
        this.channel = connection.createChannel();
    }

    public Channel channel() {
        return channel;
    }

    /** A fresh channel (a channel error closes only it). */
    public Channel newChannel() throws Exception {
        return connection.createChannel();
    }

    /** Waits for {@code count} messages in {@code queue} and takes them (auto-ack). */
    public List<GetResponse> take(String queue, int count) {
        List<GetResponse> taken = new ArrayList<>();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            GetResponse r;
            while (taken.size() < count && (r = channel.basicGet(queue, true)) != null) {
                taken.add(r);
            }
            return taken.size() >= count;
        });
        return taken;
    }

    /** Empties {@code queue}, declaring it first (durable, classic, as the relay does) when it does not exist. */
    public void purge(String queue) throws Exception {
        try (Channel ch = connection.createChannel()) {
            ch.queueDeclare(queue, true, false, false, null);
            ch.queuePurge(queue);
        }
    }

    public long messageCount(String queue) throws Exception {
        return channel.queueDeclarePassive(queue).getMessageCount();
    }

    @Override
    public void close() throws Exception {
        connection.close();
    }
}
