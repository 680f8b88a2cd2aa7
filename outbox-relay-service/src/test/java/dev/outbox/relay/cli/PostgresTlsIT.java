package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.api.OutboxException;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.cli.RelayCommandIT.Run;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TestCertificates;
import dev.outbox.worker.OutboxWorker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 42, item 2: PostgreSQL over TLS with {@code sslmode=verify-full}, against a server of the
 * test's own whose pg_hba.conf refuses connections without TLS ({@link TlsPostgres}). The recording
 * API, the relay service and the worker work over it; a wrong CA or a host name the certificate does
 * not name is refused with one line, never downgraded.
 */
class PostgresTlsIT {

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @TempDir
    static Path dir;

    static TestCertificates certs;
    static TlsPostgres pg;
    static Path routesFile;
    static String queue;

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.get();
        pg = TlsPostgres.shared();
        queue = rabbit.queue("refunds");
        routesFile = dir.resolve("routes.yaml");
        Files.writeString(
                routesFile,
                "routes: {order.cancelled: [{job: refund, queue: %s, retryDelaysSeconds: [5], deliveryTimeoutSeconds: 300}]}"
                        .formatted(queue));
    }

    @BeforeEach
    void clean() throws Exception {
        pg.truncate();
    }

    /** The service's settings for the TLS server at {@code jdbcUrl}, a broker and a routes file. */
    static Map<String, String> env(String jdbcUrl, String amqpUri, Path routesFile) {
        Map<String, String> env = new HashMap<>();
        env.put("OUTBOX_JDBC_URL", jdbcUrl);
        env.put("OUTBOX_JDBC_USER", "postgres");
        env.put("OUTBOX_AMQP_URI", amqpUri);
        env.put("OUTBOX_ROUTES_FILE", routesFile.toString());
        return env;
    }

    static Map<String, String> env(String jdbcUrl) {
        return env(jdbcUrl, rabbit.uri(), routesFile);
    }

    static boolean overTls(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("select ssl from pg_stat_ssl where pid = pg_backend_pid()")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    @Test
    void theServerRefusesAConnectionWithoutTls() {
        assertThatThrownBy(() -> DriverManager.getConnection(
                                "jdbc:postgresql://localhost:" + pg.port() + "/postgres?sslmode=disable",
                                "postgres",
                                "")
                        .close())
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("no encryption");
    }

    @Test
    void recordsThroughJooqOverAVerifiedTlsConnection() throws Exception {
        try (Connection c = pg.connect()) {
            TlsPostgres.record(c, new OrderCancelled(1));

            assertThat(overTls(c))
                    .as("pg_stat_ssl.ssl of the recording connection")
                    .isTrue();
        }
        try (Connection c = pg.connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select count(*) from outbox_events")) {
            assertThat(rs.next() && rs.getInt(1) == 1).isTrue();
        }
    }

    @Test
    void theDriverRefusesAWrongCaOrHostNameBeforeAnythingIsRecorded() {
        assertThatThrownBy(() -> DriverManager.getConnection(pg.url("localhost", certs.otherCaPem()), "postgres", "")
                        .close())
                .isInstanceOf(SQLException.class)
                .hasRootCauseInstanceOf(java.security.cert.CertPathBuilderException.class);
        assertThatThrownBy(() -> DriverManager.getConnection(pg.url("127.0.0.1", certs.caPem()), "postgres", "")
                        .close())
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("127.0.0.1");
    }

    @Test
    void theRelayServiceRoutesAndDispatchesOverTlsAndTheWorkerCompletes() throws Exception {
        try (Connection c = pg.connect()) {
            TlsPostgres.record(c, new OrderCancelled(7));
        }

        Run relay = RelayCommandIT.run(env(pg.url("localhost", certs.caPem())), "relay");

        assertThat(relay.exitCode()).as(relay.err()).isZero();
        assertThat(pg.status()).isEqualTo(OutboxDeliveryStatus.dispatched);
        try (HikariDataSource dataSource = pg.dataSource(pg.url("localhost", certs.caPem()));
                OutboxWorker worker = OutboxWorker.builder()
                        .dataSource(dataSource)
                        .connectionFactory(rabbit.connectionFactory())
                        .queue(queue)
                        .shutdownHook(false)
                        .handler("refund", OrderCancelled.class, (event, context) -> {})
                        .build()) {
            worker.start();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> pg.status() == OutboxDeliveryStatus.completed);
        }
    }

    @Test
    void theServiceRunsStatusOverTls() {
        Run status = RelayCommandIT.run(env(pg.url("localhost", certs.caPem())), "status");

        assertThat(status.exitCode()).as(status.err()).isZero();
    }

    @Test
    void theServiceRefusesAServerSignedByAnotherCaWithOneLine() {
        Run relay = RelayCommandIT.run(env(pg.url("localhost", certs.otherCaPem())), "relay");

        assertThat(relay.exitCode()).isEqualTo(1);
        assertThat(relay.err())
                .startsWith("outbox-relay: database unreachable (")
                .hasLineCount(1)
                .contains(
                        "TLS: the server's certificate is not trusted: not signed by the CA of sslrootcert in OUTBOX_JDBC_URL");
    }

    @Test
    void theServiceRefusesAHostNameTheCertificateDoesNotNameWithOneLine() {
        Run relay = RelayCommandIT.run(env(pg.url("127.0.0.1", certs.caPem())), "relay");

        assertThat(relay.exitCode()).isEqualTo(1);
        assertThat(relay.err())
                .startsWith("outbox-relay: database unreachable (")
                .hasLineCount(1)
                .contains("TLS: the server's certificate does not name the host of OUTBOX_JDBC_URL");
    }

    @Test
    void aLoopingRelayStopsAtOnceOnAWrongCaInsteadOfWaitingForTheDatabase() {
        Run relay = RelayCommandIT.run(env(pg.url("localhost", certs.otherCaPem())), "relay", "--loop");

        assertThat(relay.exitCode()).isEqualTo(1);
        assertThat(relay.err()).hasLineCount(1).contains("sslrootcert");
    }

    @Test
    void theWorkerRefusesAWrongCaAtStartInsteadOfWaiting() {
        try (HikariDataSource dataSource = lazyDataSource(pg.url("localhost", certs.otherCaPem()));
                OutboxWorker worker = OutboxWorker.builder()
                        .dataSource(dataSource)
                        .connectionFactory(rabbit.connectionFactory())
                        .queue(queue)
                        .shutdownHook(false)
                        .handler("refund", OrderCancelled.class, (event, context) -> {})
                        .build()) {
            assertThatThrownBy(worker::start)
                    .isInstanceOf(OutboxException.class)
                    .hasMessageStartingWith("the worker cannot connect to the database (")
                    .hasMessageContaining("TLS: the server's certificate is not trusted")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
    }

    @Test
    void theServiceRefusesAnSslRootCertFileThatDoesNotExistAsABadSetting() {
        Run relay = RelayCommandIT.run(env(pg.url("localhost", dir.resolve("missing.pem"))), "relay");

        assertThat(relay.exitCode()).isEqualTo(2);
        assertThat(relay.err())
                .startsWith("outbox-relay: OUTBOX_JDBC_URL: ")
                .contains("sslrootcert")
                .hasLineCount(1);
    }

    /** A pool that does not connect when built, as an application's often does not. */
    static HikariDataSource lazyDataSource(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        config.setMaximumPoolSize(2);
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(2_000);
        return new HikariDataSource(config);
    }
}
