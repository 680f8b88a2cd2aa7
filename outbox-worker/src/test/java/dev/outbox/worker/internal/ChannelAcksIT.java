package dev.outbox.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.outbox.testing.RabbitExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A group's multiple ack never covers a message still open on the channel (a job running, a message not yet read). */
class ChannelAcksIT {

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @Test
    void acknowledgesTheOldestUnsettledTagsWithOneMultipleAckAndLeavesAnOpenOneAlone() throws Exception {
        String queue = rabbit.queue("acks-prefix");
        try (Connection connection = rabbit.connectionFactory().newConnection("channel-acks-test")) {
            Channel ch = connection.createChannel();
            ch.queueDeclare(queue, true, false, false, null);
            publish(ch, queue, 4);
            List<Long> tags = take(ch, queue, 4);
            ChannelAcks acks = new ChannelAcks(ch);
            tags.forEach(acks::received);

            acks.ackAll(List.of(tags.get(0), tags.get(1), tags.get(3))); // the third is still running
            ch.close(); // what is unacknowledged goes back to the queue

            Channel probe = connection.createChannel();
            List<String> back = bodies(probe, queue);
            assertThat(back).containsExactly("m2");
            probe.queueDelete(queue);
        }
    }

    @Test
    void neverCoversATagOlderThanTheGroupThatIsStillOpen() throws Exception {
        String queue = rabbit.queue("acks-gap");
        try (Connection connection = rabbit.connectionFactory().newConnection("channel-acks-test")) {
            Channel ch = connection.createChannel();
            ch.queueDeclare(queue, true, false, false, null);
            publish(ch, queue, 3);
            List<Long> tags = take(ch, queue, 3);
            ChannelAcks acks = new ChannelAcks(ch);
            tags.forEach(acks::received);

            acks.ackAll(List.of(tags.get(1), tags.get(2))); // the first is still running
            ch.close();

            Channel probe = connection.createChannel();
            assertThat(bodies(probe, queue)).containsExactly("m0");
            probe.queueDelete(queue);
        }
    }

    private static void publish(Channel ch, String queue, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            ch.basicPublish("", queue, null, ("m" + i).getBytes(StandardCharsets.UTF_8));
        }
    }

    private static List<Long> take(Channel ch, String queue, int n) throws Exception {
        List<Long> tags = new ArrayList<>();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (tags.size() < n && System.nanoTime() < deadline) {
            GetResponse r = ch.basicGet(queue, false);
            if (r != null) {
                tags.add(r.getEnvelope().getDeliveryTag());
            }
        }
        assertThat(tags).hasSize(n);
        return tags;
    }

    private static List<String> bodies(Channel ch, String queue) throws Exception {
        List<String> bodies = new ArrayList<>();
        GetResponse r;
        while ((r = ch.basicGet(queue, true)) != null) {
            bodies.add(new String(r.getBody(), StandardCharsets.UTF_8));
        }
        return bodies;
    }
}
