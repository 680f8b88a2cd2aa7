package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.api.Outbox;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Routes;
import dev.outbox.spring.boot.autoconfigure.OutboxAutoConfigurationIT.OrderPlaced;
import dev.outbox.spring.boot.autoconfigure.OutboxAutoConfigurationIT.Orders;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.TestCertificates;
import dev.outbox.testing.TlsBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * TLS to the broker from Boot's {@code spring.rabbitmq.ssl.*}: the stores, an SSL bundle of
 * {@code spring.ssl.bundle.*}, host name checks, each shown by connecting to a broker that speaks TLS only
 * ({@link TlsBroker}: its certificate names {@code localhost} and is signed by the test CA; its mutual
 * port wants a client certificate of that CA). A bad setting fails naming the property, never a password.
 */
class BrokerTlsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    /** The JDK's words for a certificate that no trusted CA signed. */
    private static final String UNTRUSTED = "unable to find valid certification path to requested target";

    static TestCertificates certs;
    static TlsBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        certs = TestCertificates.get();
        broker = TlsBroker.start(certs, Files.createTempDirectory("outbox-boot-tls-"));
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    private static Map<String, String> tlsTo(int port, String... more) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "spring.rabbitmq.host",
                "localhost",
                "spring.rabbitmq.port",
                String.valueOf(port),
                "spring.rabbitmq.ssl.enabled",
                "true"));
        for (int i = 0; i < more.length; i += 2) {
            properties.put(more[i], more[i + 1]);
        }
        return properties;
    }

    private static ConnectionFactory factory(Map<String, String> properties, SslBundles bundles) {
        return BrokerConnection.of("worker", null, new Binder(new MapConfigurationPropertySource(properties)), bundles);
    }

    private static ConnectionFactory factory(Map<String, String> properties) {
        return factory(properties, null);
    }

    private static void connects(ConnectionFactory factory) throws Exception {
        try (Connection connection = factory.newConnection("boot-tls-test")) {
            assertThat(connection.isOpen()).isTrue();
            assertThat(factory.isSSL()).isTrue();
        }
    }

    @Test
    void aTrustStoreOfSpringRabbitmqSslLetsTheWorkerTrustTheBrokersPrivateCa() throws Exception {
        connects(factory(tlsTo(
                broker.port(),
                "spring.rabbitmq.ssl.trust-store",
                "file:" + certs.trustStore(),
                "spring.rabbitmq.ssl.trust-store-password",
                TestCertificates.PASSWORD,
                "spring.rabbitmq.ssl.trust-store-type",
                "PKCS12")));
    }

    @Test
    void withoutTheCaTheBrokersCertificateIsRefused() {
        assertThatThrownBy(() -> factory(tlsTo(broker.port())).newConnection()).hasRootCauseMessage(UNTRUSTED);
        assertThatThrownBy(() -> factory(tlsTo(
                                broker.port(),
                                "spring.rabbitmq.ssl.trust-store",
                                certs.otherTrustStore().toString(),
                                "spring.rabbitmq.ssl.trust-store-password",
                                TestCertificates.PASSWORD))
                        .newConnection())
                .hasRootCauseMessage(UNTRUSTED);
    }

    @Test
    void aKeyStoreGivesTheClientCertificateABrokerAsksFor() throws Exception {
        String[] trust = {
            "spring.rabbitmq.ssl.trust-store",
            certs.trustStore().toString(),
            "spring.rabbitmq.ssl.trust-store-password",
            TestCertificates.PASSWORD
        };
        assertThatThrownBy(() -> factory(tlsTo(broker.mutualPort(), trust)).newConnection())
                .isInstanceOf(IOException.class);

        Map<String, String> mutual = tlsTo(broker.mutualPort(), trust);
        mutual.put("spring.rabbitmq.ssl.key-store", certs.clientKeyStore().toString());
        mutual.put("spring.rabbitmq.ssl.key-store-password", TestCertificates.PASSWORD);
        mutual.put("spring.rabbitmq.ssl.algorithm", "TLSv1.3");
        connects(factory(mutual));
    }

    @Test
    void theHostNameIsCheckedUnlessVerifyHostnameIsFalse() throws Exception {
        Map<String, String> byAddress = tlsTo(
                broker.port(),
                "spring.rabbitmq.host",
                "127.0.0.1",
                "spring.rabbitmq.ssl.trust-store",
                certs.trustStore().toString(),
                "spring.rabbitmq.ssl.trust-store-password",
                TestCertificates.PASSWORD);
        assertThatThrownBy(() -> factory(byAddress).newConnection())
                .hasRootCauseMessage("No subject alternative names matching IP address 127.0.0.1 found");

        byAddress.put("spring.rabbitmq.ssl.verify-hostname", "false");
        connects(factory(byAddress));
    }

    @Test
    void anSslBundleOfSpringSslBundleTurnsTlsOnAndHoldsTheStores() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
                .withPropertyValues(
                        "spring.ssl.bundle.jks.broker.truststore.location=file:" + certs.trustStore(),
                        "spring.ssl.bundle.jks.broker.truststore.password=" + TestCertificates.PASSWORD,
                        "spring.ssl.bundle.jks.broker.truststore.type=PKCS12",
                        "spring.ssl.bundle.jks.broker.keystore.location=file:" + certs.clientKeyStore(),
                        "spring.ssl.bundle.jks.broker.keystore.password=" + TestCertificates.PASSWORD,
                        "spring.ssl.bundle.jks.broker.keystore.type=PKCS12")
                .run(context -> {
                    SslBundles bundles = context.getBean(SslBundles.class);
                    Map<String, String> properties = new HashMap<>(Map.of(
                            "spring.rabbitmq.host",
                            "localhost",
                            "spring.rabbitmq.port",
                            String.valueOf(broker.mutualPort()),
                            "spring.rabbitmq.ssl.bundle",
                            "broker"));
                    connects(factory(properties, bundles)); // no ssl.enabled: the bundle turns TLS on, as in Boot

                    properties.put("spring.rabbitmq.ssl.bundle", "brokr");
                    assertThatThrownBy(() -> factory(properties, bundles))
                            .isInstanceOf(OutboxPropertyException.class)
                            .hasMessage("spring.rabbitmq.ssl.bundle: names no SSL bundle: 'brokr' is not defined under"
                                    + " spring.ssl.bundle.jks.* or spring.ssl.bundle.pem.*");

                    properties.put("spring.rabbitmq.ssl.bundle", "broker");
                    properties.put(
                            "spring.rabbitmq.ssl.trust-store",
                            certs.trustStore().toString());
                    assertThatThrownBy(() -> factory(properties, bundles))
                            .isInstanceOf(OutboxPropertyException.class)
                            .hasMessageStartingWith(
                                    "spring.rabbitmq.ssl.bundle: and spring.rabbitmq.ssl.trust-store are both set");
                });
    }

    @Test
    void settingsThatCannotTakeEffectFailTheStartNamingTheProperty() {
        String store = certs.trustStore().toString();
        refused(
                Map.of(
                        "spring.rabbitmq.ssl.trust-store",
                        store,
                        "spring.rabbitmq.ssl.trust-store-password",
                        TestCertificates.PASSWORD),
                "spring.rabbitmq.ssl.trust-store",
                "is set but the connection is not TLS");
        refused(
                Map.of("spring.rabbitmq.ssl.bundle", "broker", "spring.rabbitmq.addresses", "amqp://localhost:5672"),
                "spring.rabbitmq.ssl.bundle",
                "is set but the connection is not TLS");
        refused(
                tlsTo(broker.port(), "spring.rabbitmq.ssl.key-store-password", "s3cret"),
                "spring.rabbitmq.ssl.key-store-password",
                "is set but spring.rabbitmq.ssl.key-store is not");
        refused(
                tlsTo(broker.port(), "spring.rabbitmq.ssl.validate-server-certificate", "false"),
                "spring.rabbitmq.ssl.validate-server-certificate",
                "is false, but the outbox always checks");
        refused(
                tlsTo(broker.port(), "spring.rabbitmq.ssl.bundle", "broker"),
                "spring.rabbitmq.ssl.bundle",
                "is set but the application has no SSL bundles");
        refused(
                tlsTo(broker.port(), "spring.rabbitmq.ssl.trust-store", store),
                "spring.rabbitmq.ssl.trust-store-password",
                "is required with spring.rabbitmq.ssl.trust-store");
        refused(
                tlsTo(
                        broker.port(),
                        "spring.rabbitmq.ssl.trust-store",
                        store,
                        "spring.rabbitmq.ssl.trust-store-password",
                        "s3cret"),
                "spring.rabbitmq.ssl.trust-store-password",
                "does not open spring.rabbitmq.ssl.trust-store");
        refused(
                tlsTo(
                        broker.port(),
                        "spring.rabbitmq.ssl.trust-store",
                        store,
                        "spring.rabbitmq.ssl.trust-store-password",
                        TestCertificates.PASSWORD,
                        "spring.rabbitmq.ssl.trust-store-type",
                        "BKS"),
                "spring.rabbitmq.ssl.trust-store-type",
                "'BKS' is not read here");
        refused(
                tlsTo(
                        broker.port(),
                        "spring.rabbitmq.ssl.trust-store",
                        store,
                        "spring.rabbitmq.ssl.trust-store-password",
                        TestCertificates.PASSWORD,
                        "spring.rabbitmq.ssl.trust-store-algorithm",
                        "NoSuchX509"),
                "spring.rabbitmq.ssl.trust-store-algorithm",
                "'NoSuchX509' is not an algorithm this JVM knows");
        refused(
                tlsTo(
                        broker.port(),
                        "spring.rabbitmq.ssl.trust-store",
                        store,
                        "spring.rabbitmq.ssl.trust-store-password",
                        TestCertificates.PASSWORD,
                        "spring.rabbitmq.ssl.algorithm",
                        "TLSv9"),
                "spring.rabbitmq.ssl.algorithm",
                "'TLSv9' is not a TLS protocol this JVM knows");
        refused(
                tlsTo(
                        broker.port(),
                        "spring.rabbitmq.ssl.trust-store",
                        "classpath:no/such/store.p12",
                        "spring.rabbitmq.ssl.trust-store-password",
                        TestCertificates.PASSWORD),
                "spring.rabbitmq.ssl.trust-store",
                "classpath:no/such/store.p12 is not a file");
        refused(
                tlsTo(
                        broker.port(),
                        "spring.rabbitmq.ssl.key-store",
                        store,
                        "spring.rabbitmq.ssl.key-store-password",
                        TestCertificates.PASSWORD),
                "spring.rabbitmq.ssl.key-store",
                "holds no private key");
    }

    private static void refused(Map<String, String> properties, String property, String problem) {
        assertThatThrownBy(() -> factory(properties))
                .isInstanceOf(OutboxPropertyException.class)
                .hasMessageStartingWith(property + ": ")
                .hasMessageContaining(problem)
                .satisfies(e ->
                        assertThat(((OutboxPropertyException) e).property()).isEqualTo(property))
                .satisfies(e -> assertThat(e.getMessage())
                        .doesNotContain(TestCertificates.PASSWORD)
                        .doesNotContain("s3cret"));
    }

    /** Records orders in {@code @Transactional}, relays them and runs their jobs, all over TLS with a client certificate. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class TlsShop {
        static final AtomicInteger refunds = new AtomicInteger();

        @Bean
        Orders orders(DSLContext dsl, Outbox outbox) {
            return new Orders(dsl, outbox);
        }

        @Bean
        Routes orderRoutes() {
            return Routes.builder()
                    .job("order.placed", "refund", TlsBroker.QUEUE, RetrySchedule.seconds(5), Duration.ofMinutes(5))
                    .build();
        }

        @Bean
        OutboxJobHandler<OrderPlaced> refund() {
            return OutboxJobHandler.of(
                    "refund", OrderPlaced.class, TlsBroker.QUEUE, (order, context) -> refunds.incrementAndGet());
        }
    }

    @Test
    void aBootApplicationsRelayAndWorkerUseTheBundleOfSpringRabbitmqSsl() {
        String bundle = "spring.ssl.bundle.jks.broker.";
        try (ConfigurableApplicationContext context = BootApps.start(
                db,
                TlsShop.class,
                "outbox.relay.enabled=true",
                "spring.rabbitmq.host=localhost",
                "spring.rabbitmq.port=" + broker.mutualPort(),
                "spring.rabbitmq.ssl.bundle=broker",
                bundle + "truststore.location=file:" + certs.trustStore(),
                bundle + "truststore.password=" + TestCertificates.PASSWORD,
                bundle + "truststore.type=PKCS12",
                bundle + "keystore.location=file:" + certs.clientKeyStore(),
                bundle + "keystore.password=" + TestCertificates.PASSWORD,
                bundle + "keystore.type=PKCS12")) {
            context.getBean(Orders.class).place("tls-1", false);

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> BootApps.count(db, "outbox_deliveries", "status = 'completed'") == 1);
            assertThat(TlsShop.refunds).hasValue(1);
        }
    }

    @Test
    void theWorkersOwnUriUsesTheJvmsTlsContextAndIgnoresSpringRabbitmqSsl() {
        Path trust = certs.trustStore();
        ConnectionFactory factory = BrokerConnection.of(
                "worker",
                TlsBroker.uri("localhost", broker.port()),
                new Binder(new MapConfigurationPropertySource(
                        Map.of("spring.rabbitmq.ssl.trust-store", trust.toString()))),
                null);
        assertThatThrownBy(factory::newConnection).hasRootCauseMessage(UNTRUSTED);
    }
}
