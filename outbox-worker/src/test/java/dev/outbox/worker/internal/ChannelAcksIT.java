package dev.outbox.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.GetResponse;
import dev.outbox.delivery.amqp.AmqpAddress;
import dev.outbox.delivery.amqp.AmqpFactories;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TcpProxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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

    /**
     * After amqp-client's automatic recovery the broker numbers the new channel's deliveries from 1
     * again; the client offsets them so that they keep growing, and drops an ack of a tag from before
     * the recovery. A group of such stale tags, acknowledged with one multiple ack, must neither ack
     * the new channel's messages nor close it with "unknown delivery tag".
     */
    @Test
    void aMultipleAckOfTagsFromBeforeAConnectionRecoveryAcknowledgesNothingAndKeepsTheChannelOpen() throws Exception {
        String queue = rabbit.queue("acks-recovery");
        ConnectionFactory viaProxy;
        try (TcpProxy proxy = TcpProxy.toAmqpUri(rabbit.uri());
                Connection direct = rabbit.connectionFactory().newConnection("channel-acks-publisher")) {
            viaProxy = AmqpFactories.of(AmqpAddress.parse(proxy.amqpUri(rabbit.uri()), "test"));
            viaProxy.setAutomaticRecoveryEnabled(true);
            viaProxy.setTopologyRecoveryEnabled(true);
            viaProxy.setNetworkRecoveryInterval(200);
            Channel publisher = direct.createChannel();
            publisher.queueDeclare(queue, true, false, false, null);
            publish(publisher, queue, 2);
            try (Connection connection = viaProxy.newConnection("channel-acks-recovery")) {
                Channel ch = connection.createChannel();
                ChannelAcks acks = new ChannelAcks(ch);
                BlockingQueue<Delivered> delivered = new LinkedBlockingQueue<>();
                ch.basicQos(10);
                ch.basicConsume(queue, false, new DefaultConsumer(ch) {
                    @Override
                    public void handleDelivery(
                            String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                        acks.received(envelope.getDeliveryTag());
                        delivered.add(
                                new Delivered(envelope.getDeliveryTag(), new String(body, StandardCharsets.UTF_8)));
                    }
                });
                List<Delivered> before = next(delivered, 2);

                proxy.cut(); // the connection recovers; the broker gives m0 and m1 to the new channel again
                List<Delivered> again = next(delivered, 2);
                publisher.basicPublish("", queue, null, "m2".getBytes(StandardCharsets.UTF_8));
                List<Delivered> fresh = next(delivered, 1);
                assertThat(again)
                        .extracting(Delivered::tag)
                        .allMatch(t -> t > before.get(1).tag());

                acks.ackAll(
                        List.of(before.get(0).tag(), before.get(1).tag())); // stale: one multiple ack up to the second
                Delivered m0 = again.stream()
                        .filter(d -> d.body().equals("m0"))
                        .findFirst()
                        .orElseThrow();
                acks.ackAll(List.of(m0.tag()));
                Thread.sleep(300); // a channel error would arrive meanwhile
                assertThat(ch.isOpen()).as("the channel after the acks").isTrue();
                assertThat(fresh).extracting(Delivered::body).containsExactly("m2");
                ch.close(); // what is unacknowledged goes back to the queue
            }
            assertThat(bodies(publisher, queue)).containsExactlyInAnyOrder("m1", "m2");
            publisher.queueDelete(queue);
        }
    }

    private record Delivered(long tag, String body) {}

    private static List<Delivered> next(BlockingQueue<Delivered> delivered, int n) throws InterruptedException {
        List<Delivered> result = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Delivered d = delivered.poll(20, TimeUnit.SECONDS);
            assertThat(d).as("delivery %d of %d", i + 1, n).isNotNull();
            result.add(d);
        }
        return result;
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
