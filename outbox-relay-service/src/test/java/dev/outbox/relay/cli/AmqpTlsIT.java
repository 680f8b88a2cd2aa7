package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.api.OutboxException;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.cli.RelayCommandIT.Run;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.TestCertificates;
import dev.outbox.testing.TlsBroker;
import dev.outbox.worker.OutboxWorker;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42, item 2: RabbitMQ over {@code amqps://} against a broker of the test's own with TLS ports
 * only ({@link TlsBroker}), the database over TLS too ({@link TlsPostgres}): the relay service publishes
 * with the trust store of its settings (and a client key store for mutual TLS), the worker consumes with
 * a trust store of its own; a wrong CA or a host name the certificate does not name is refused with one line.
 */
class AmqpTlsIT {

    @TempDir
    static Path dir;

    static TestCertificates certs;
    static TlsPostgres pg;
    static TlsBroker broker;
    static Path routesFile;
    static Path passwordFile;

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.get();
        pg = TlsPostgres.shared();
        broker = TlsBroker.start(certs, dir);
        routesFile = dir.resolve("routes.yaml");
        Files.writeString(
                routesFile,
                "routes: {order.cancelled: [{job: refund, queue: " + TlsBroker.QUEUE
                        + ", retryDelaysSeconds: [5], deliveryTimeoutSeconds: 300}]}");
        passwordFile = dir.resolve("trust-store-password");
        Files.writeString(passwordFile, TestCertificates.PASSWORD + "\n");
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void clean() throws Exception {
        pg.truncate();
        try (Connection c = pg.connect()) {
            TlsPostgres.record(c, new OrderCancelled(3));
        }
    }

    /** The service's settings: both connections over verified TLS, the trust store's password from a file. */
    static Map<String, String> env(String amqpUri) {
        Map<String, String> env = PostgresTlsIT.env(pg.url("localhost", certs.caPem()), amqpUri, routesFile);
        env.put("OUTBOX_AMQP_TRUST_STORE", certs.trustStore().toString());
        env.put("OUTBOX_AMQP_TRUST_STORE_PASSWORD_FILE", passwordFile.toString());
        return env;
    }

    /** What an application gives the worker for amqps: a factory with its trust store and host name verification. */
    static ConnectionFactory workerFactory(String host, Path trustStore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(trustStore)) {
            store.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(host);
        factory.setPort(broker.port());
        factory.useSslProtocol(context);
        factory.enableHostnameVerification();
        factory.setAutomaticRecoveryEnabled(false);
        return factory;
    }

    static OutboxWorker worker(HikariDataSource dataSource, ConnectionFactory factory) {
        return OutboxWorker.builder()
                .dataSource(dataSource)
                .connectionFactory(factory)
                .queue(TlsBroker.QUEUE)
                .shutdownHook(false)
                .handler("refund", OrderCancelled.class, (event, context) -> {})
                .build();
    }

    @Test
    void theRelayServicePublishesOverAmqpsWithItsTrustStoreAndTheWorkerCompletesOverTls() throws Exception {
        Run relay = RelayCommandIT.run(env(TlsBroker.uri("localhost", broker.port())), "relay");

        assertThat(relay.exitCode()).as(relay.err()).isZero();
        assertThat(pg.status()).isEqualTo(OutboxDeliveryStatus.dispatched);
        try (HikariDataSource dataSource = pg.dataSource(pg.url("localhost", certs.caPem()));
                OutboxWorker worker = worker(dataSource, workerFactory("localhost", certs.trustStore()))) {
            worker.start();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> pg.status() == OutboxDeliveryStatus.completed);
        }
    }

    @Test
    void theRelayServicePresentsItsKeyStoreToABrokerThatAsksForAClientCertificate() {
        Map<String, String> env = env(TlsBroker.uri("localhost", broker.mutualPort()));
        Run withoutCertificate = RelayCommandIT.run(env, "relay");
        env.put("OUTBOX_AMQP_KEY_STORE", certs.clientKeyStore().toString());
        env.put("OUTBOX_AMQP_KEY_STORE_PASSWORD", TestCertificates.PASSWORD);
        Run withCertificate = RelayCommandIT.run(env, "relay");

        assertThat(withoutCertificate.exitCode()).isEqualTo(1);
        assertThat(withoutCertificate.err())
                .startsWith("outbox-relay: broker unreachable (")
                .hasLineCount(1);
        assertThat(withCertificate.exitCode()).as(withCertificate.err()).isZero();
    }

    @Test
    void theRelayServiceRefusesABrokerSignedByAnotherCaWithOneLine() {
        Map<String, String> env = env(TlsBroker.uri("localhost", broker.port()));
        env.put("OUTBOX_AMQP_TRUST_STORE", certs.otherTrustStore().toString());

        Run relay = RelayCommandIT.run(env, "relay");

        assertThat(relay.exitCode()).isEqualTo(1);
        assertThat(relay.err())
                .startsWith("outbox-relay: broker unreachable (")
                .hasLineCount(1)
                .contains(
                        "TLS: the broker's certificate is not trusted: not signed by a CA of OUTBOX_AMQP_TRUST_STORE");
    }

    @Test
    void aLoopingRelayStopsAtOnceOnABrokerCertificateItCannotTrust() {
        Map<String, String> env = env(TlsBroker.uri("localhost", broker.port()));
        env.put("OUTBOX_AMQP_TRUST_STORE", certs.otherTrustStore().toString());

        Run relay = RelayCommandIT.run(env, "relay", "--loop");

        assertThat(relay.exitCode()).isEqualTo(1);
        assertThat(relay.err())
                .hasLineCount(1)
                .contains(
                        "TLS: the broker's certificate is not trusted: not signed by a CA of OUTBOX_AMQP_TRUST_STORE");
    }

    @Test
    void theRelayServiceRefusesAHostNameTheBrokersCertificateDoesNotNameWithOneLine() {
        Run relay = RelayCommandIT.run(env(TlsBroker.uri("127.0.0.1", broker.port())), "relay");

        assertThat(relay.exitCode()).isEqualTo(1);
        assertThat(relay.err())
                .startsWith("outbox-relay: broker unreachable (")
                .hasLineCount(1)
                .contains("TLS: the broker's certificate does not name the host of OUTBOX_AMQP_URI");
    }

    @Test
    void theWorkerRefusesAWrongCaOrHostAtStartWithOneLine() throws Exception {
        try (HikariDataSource dataSource = pg.dataSource(pg.url("localhost", certs.caPem()))) {
            for (ConnectionFactory factory : new ConnectionFactory[] {
                workerFactory("localhost", certs.otherTrustStore()), workerFactory("127.0.0.1", certs.trustStore())
            }) {
                try (OutboxWorker worker = worker(dataSource, factory)) {
                    assertThatThrownBy(worker::start)
                            .isInstanceOf(OutboxException.class)
                            .hasMessageContaining("SSLHandshakeException: TLS: the server's certificate")
                            .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
                }
            }
        }
    }
}
