package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay service's TLS settings for RabbitMQ (issue 42, item 2): {@code OUTBOX_AMQP_TRUST_STORE} and
 * {@code OUTBOX_AMQP_KEY_STORE} with their passwords (also from {@code *_FILE}). A bad one is one line that
 * names it, exit 2, and never shows a password.
 */
class AmqpTlsSettingsTest {

    static final String URI = "amqps://relay:s3cret@rabbit.example/%2F";

    @TempDir
    static Path dir;

    static TestCertificates certs;

    @BeforeAll
    static void certificates() {
        certs = TestCertificates.get();
    }

    static Map<String, String> env(String... pairs) {
        Map<String, String> env = new HashMap<>();
        env.put("OUTBOX_AMQP_URI", URI);
        for (int i = 0; i < pairs.length; i += 2) {
            env.put(pairs[i], pairs[i + 1]);
        }
        return env;
    }

    static ConnectionFactory amqp(Map<String, String> env) {
        return ServiceSettings.load(env, null).amqp();
    }

    static void refused(Map<String, String> env, String setting, String problem) {
        assertThatThrownBy(() -> amqp(env))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(setting + ": ")
                .hasMessageContaining(problem)
                .satisfies(e -> assertThat(e.getMessage())
                        .doesNotContain(TestCertificates.PASSWORD)
                        .doesNotContain("s3cret"));
    }

    @Test
    void aTrustStoreAndItsPasswordFromAFileMakeATlsFactory() throws Exception {
        Path password = dir.resolve("password");
        Files.writeString(password, TestCertificates.PASSWORD + "\n");

        ConnectionFactory factory = amqp(env(
                "OUTBOX_AMQP_TRUST_STORE",
                certs.trustStore().toString(),
                "OUTBOX_AMQP_TRUST_STORE_PASSWORD_FILE",
                password.toString(),
                "OUTBOX_AMQP_KEY_STORE",
                certs.clientKeyStore().toString(),
                "OUTBOX_AMQP_KEY_STORE_PASSWORD",
                TestCertificates.PASSWORD));

        assertThat(factory.isSSL()).isTrue();
    }

    @Test
    void refusesATrustStoreThatDoesNotExist() {
        refused(
                env(
                        "OUTBOX_AMQP_TRUST_STORE",
                        dir.resolve("missing.p12").toString(),
                        "OUTBOX_AMQP_TRUST_STORE_PASSWORD",
                        "x"),
                "OUTBOX_AMQP_TRUST_STORE",
                "no such file");
    }

    @Test
    void refusesAWrongPasswordNamingThePasswordSetting() {
        refused(
                env(
                        "OUTBOX_AMQP_TRUST_STORE",
                        certs.trustStore().toString(),
                        "OUTBOX_AMQP_TRUST_STORE_PASSWORD",
                        "wrong"),
                "OUTBOX_AMQP_TRUST_STORE_PASSWORD",
                "wrong password");
        refused(
                env(
                        "OUTBOX_AMQP_KEY_STORE",
                        certs.clientKeyStore().toString(),
                        "OUTBOX_AMQP_KEY_STORE_PASSWORD",
                        "wrong"),
                "OUTBOX_AMQP_KEY_STORE_PASSWORD",
                "wrong password");
    }

    @Test
    void refusesAStoreWithoutItsPassword() {
        refused(
                env("OUTBOX_AMQP_TRUST_STORE", certs.trustStore().toString()),
                "OUTBOX_AMQP_TRUST_STORE_PASSWORD",
                "is required");
        refused(
                env("OUTBOX_AMQP_KEY_STORE", certs.clientKeyStore().toString()),
                "OUTBOX_AMQP_KEY_STORE_PASSWORD",
                "is required");
    }

    @Test
    void refusesAPasswordWithoutItsStore() {
        refused(
                env("OUTBOX_AMQP_TRUST_STORE_PASSWORD", TestCertificates.PASSWORD),
                "OUTBOX_AMQP_TRUST_STORE_PASSWORD",
                "is not");
    }

    @Test
    void refusesAFileThatIsNoStore() throws Exception {
        Path pem = certs.caPem();
        refused(
                env("OUTBOX_AMQP_TRUST_STORE", pem.toString(), "OUTBOX_AMQP_TRUST_STORE_PASSWORD", "x"),
                "OUTBOX_AMQP_TRUST_STORE",
                "is not a PKCS12 or JKS store");
    }

    @Test
    void refusesAKeyStoreWithoutAKey() {
        refused(
                env(
                        "OUTBOX_AMQP_KEY_STORE",
                        certs.trustStore().toString(),
                        "OUTBOX_AMQP_KEY_STORE_PASSWORD",
                        TestCertificates.PASSWORD),
                "OUTBOX_AMQP_KEY_STORE",
                "holds no private key");
    }

    @Test
    void refusesAStoreForAPlainAmqpUriInsteadOfIgnoringIt() {
        refused(
                env(
                        "OUTBOX_AMQP_URI",
                        "amqp://relay:s3cret@rabbit.example/%2F",
                        "OUTBOX_AMQP_TRUST_STORE",
                        certs.trustStore().toString(),
                        "OUTBOX_AMQP_TRUST_STORE_PASSWORD",
                        TestCertificates.PASSWORD),
                "OUTBOX_AMQP_TRUST_STORE",
                "is not amqps://");
    }

    @Test
    void aBadStoreEndsTheServiceWithExitTwoAndOneLine() {
        Map<String, String> env = env(
                "OUTBOX_AMQP_TRUST_STORE",
                dir.resolve("missing.p12").toString(),
                "OUTBOX_AMQP_TRUST_STORE_PASSWORD",
                TestCertificates.PASSWORD,
                "OUTBOX_JDBC_URL",
                "jdbc:postgresql://db.invalid/app",
                "OUTBOX_ROUTES_FILE",
                dir.resolve("routes.yaml").toString());

        RelayCommandIT.Run run = RelayCommandIT.run(env, "relay");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .startsWith("outbox-relay: OUTBOX_AMQP_TRUST_STORE: no such file")
                .hasLineCount(1)
                .doesNotContain(TestCertificates.PASSWORD);
    }
}
