package dev.outbox.demo;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URL;
import java.util.HashMap;
import java.util.Map;
import org.apache.qpid.server.SystemLauncher;

/**
 * An in-process AMQP 0-9-1 broker (Qpid Broker-J, memory store) for the demo when no RabbitMQ is
 * named. Listens on a free port of 127.0.0.1 with guest/guest.
 */
final class EmbeddedBroker implements AutoCloseable {

    /** Every queue's minimum message TTL (see {@link #start()}). */
    static final long MINIMUM_MESSAGE_TTL_MILLIS = 600_000;

    private final SystemLauncher launcher = new SystemLauncher();
    private final int port;

    private EmbeddedBroker(int port) {
        this.port = port;
    }

    static EmbeddedBroker start() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        EmbeddedBroker broker = new EmbeddedBroker(port);
        URL config = EmbeddedBroker.class.getClassLoader().getResource("outbox-demo-qpid.json");
        if (config == null) {
            throw new IOException("outbox-demo-qpid.json is missing from the class path");
        }
        Map<String, Object> attributes = new HashMap<>();
        attributes.put("type", "Memory");
        attributes.put("initialConfigurationLocation", config.toExternalForm());
        attributes.put("startupLoggedToSystemOut", false);
        // Qpid reads AMQP 0-9-1's `expiration` as a point in time (its 0-8 clients' meaning), not as
        // RabbitMQ's time to live in milliseconds: the relay's job messages (expiration = the route's
        // delivery timeout) would expire on arrival and no job would ever run. A minimum TTL for every
        // queue gives each message 10 minutes from its arrival instead, longer than the demo runs.
        attributes.put(
                "context",
                Map.of(
                        "qpid.amqp_port",
                        String.valueOf(port),
                        "qpid.work_dir",
                        System.getProperty("java.io.tmpdir") + "/outbox-demo-qpid-" + port,
                        "queue.minimumMessageTtl",
                        String.valueOf(MINIMUM_MESSAGE_TTL_MILLIS)));
        broker.launcher.startup(attributes);
        return broker;
    }

    String uri() {
        return "amqp://guest:guest@127.0.0.1:" + port + "/%2F";
    }

    @Override
    public void close() {
        launcher.shutdown();
    }
}
