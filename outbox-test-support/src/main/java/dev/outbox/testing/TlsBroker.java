package dev.outbox.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.qpid.server.SystemLauncher;

/**
 * An AMQP 0-9-1 broker of the test's own (Qpid Broker-J in this JVM, memory store, guest/guest) with
 * two TLS ports and no plain one, both serving the {@code localhost} certificate of
 * {@link TestCertificates}: {@link #port()} for any client, {@link #mutualPort()} only for a client whose
 * certificate the test CA signed. The shared broker is never touched.
 */
public final class TlsBroker implements AutoCloseable {

    /**
     * The queue of the tests, declared by the broker's configuration with a minimum message TTL: Qpid
     * reads AMQP 0-9-1's {@code expiration} as a point in time (its own 0-8 clients' meaning), not as
     * RabbitMQ's time to live, so the relay's job messages (expiration = the delivery timeout in ms)
     * would expire on arrival; the minimum TTL gives them 10 minutes from arrival instead.
     */
    public static final String QUEUE = "tls-refunds";

    private final SystemLauncher launcher = new SystemLauncher();
    private final int port;
    private final int mutualPort;

    private TlsBroker(int port, int mutualPort) {
        this.port = port;
        this.mutualPort = mutualPort;
    }

    public static TlsBroker start(TestCertificates certs, Path dir) throws Exception {
        int port = freePort();
        int mutualPort = freePort();
        TlsBroker broker = new TlsBroker(port, mutualPort);
        Path config = dir.resolve("qpid-tls.json");
        String aliases = """
                "virtualhostaliases": [{"name": "nameAlias", "type": "nameAlias"}, {"name": "defaultAlias", "type": "defaultAlias"}]""";
        Files.writeString(config, """
                {
                  "name": "outbox-tls-broker",
                  "modelVersion": "9.0",
                  "authenticationproviders": [{"name": "plain", "type": "Plain", "secureOnlyMechanisms": [],
                    "users": [{"name": "guest", "type": "managed", "password": "guest"}]}],
                  "keystores": [{"name": "server", "type": "FileKeyStore", "storeUrl": "%1$s", "password": "%3$s", "keyStoreType": "PKCS12"}],
                  "truststores": [{"name": "clients", "type": "FileTrustStore", "storeUrl": "%2$s", "password": "%3$s", "trustStoreType": "PKCS12"}],
                  "ports": [
                    {"name": "AMQPS", "port": %4$d, "bindingAddress": "127.0.0.1", "protocols": ["AMQP_0_9_1"], "transports": ["SSL"],
                      "keyStore": "server", "authenticationProvider": "plain", %6$s},
                    {"name": "AMQPS-MUTUAL", "port": %5$d, "bindingAddress": "127.0.0.1", "protocols": ["AMQP_0_9_1"], "transports": ["SSL"],
                      "keyStore": "server", "needClientAuth": true, "trustStores": ["clients"], "authenticationProvider": "plain", %6$s}
                  ],
                  "virtualhostnodes": [{"name": "default", "type": "Memory", "defaultVirtualHostNode": "true",
                    "virtualHostInitialConfiguration": "{\\"type\\": \\"Memory\\", \\"queues\\": [{\\"name\\": \\"%7$s\\", \\"durable\\": true, \\"minimumMessageTtl\\": 600000}]}"}]
                }
                """.formatted(
                        certs.serverKeyStore(),
                        certs.trustStore(),
                        TestCertificates.PASSWORD,
                        port,
                        mutualPort,
                        aliases,
                        QUEUE));
        Map<String, Object> attributes = new HashMap<>();
        attributes.put("type", "Memory");
        attributes.put("initialConfigurationLocation", config.toUri().toURL().toExternalForm());
        attributes.put("startupLoggedToSystemOut", false);
        attributes.put(
                "context", Map.of("qpid.work_dir", dir.resolve("qpid-work").toString()));
        broker.launcher.startup(attributes);
        return broker;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    public int mutualPort() {
        return mutualPort;
    }

    /** The URI of {@code port} at {@code host} (the certificate names localhost only). */
    public static String uri(String host, int port) {
        return "amqps://guest:guest@" + host + ":" + port + "/%2F";
    }

    @Override
    public void close() {
        launcher.shutdown();
    }
}
