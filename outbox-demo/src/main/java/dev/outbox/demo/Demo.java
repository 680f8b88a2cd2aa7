package dev.outbox.demo;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.net.URI;

/** The end-to-end demo; it arrives with the relay and the worker. */
public final class Demo {
    private Demo() {}

    public static void main(String[] args) throws Exception {
        long t0 = System.nanoTime();
        try (EmbeddedBroker broker = EmbeddedBroker.start()) {
            System.out.println("broker up in " + (System.nanoTime() - t0) / 1_000_000 + " ms at " + broker.uri());
            ConnectionFactory f = new ConnectionFactory();
            f.setUri(URI.create(broker.uri()));
            try (Connection c = f.newConnection(); Channel ch = c.createChannel()) {
                ch.queueDeclare("q", true, false, false, null);
                ch.confirmSelect();
                ch.basicPublish("", "q", null, "hi".getBytes());
                ch.waitForConfirmsOrDie(5000);
                System.out.println("got " + new String(ch.basicGet("q", true).getBody()));
            }
        }
    }
}
