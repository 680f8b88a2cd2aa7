package dev.outbox.relay.cli;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.api.Outbox;
import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.TestCertificates;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * A PostgreSQL server of the test's own (the embedded binaries) with {@code ssl=on}, the certificate of
 * {@link TestCertificates} (host name {@code localhost} only), and a pg_hba.conf that refuses every
 * connection without TLS: whatever logs in to it went over TLS. One per test JVM, for the TLS tests;
 * the shared server is never touched.
 */
final class TlsPostgres {

    private static TlsPostgres instance;

    private final EmbeddedPostgres embedded;
    private final TestCertificates certs;

    private TlsPostgres(EmbeddedPostgres embedded, TestCertificates certs) {
        this.embedded = embedded;
        this.certs = certs;
    }

    /** The server of this test JVM, started on first use with the outbox tables migrated, stopped when the JVM ends. */
    static synchronized TlsPostgres shared() {
        if (instance == null) {
            TlsPostgres started = start(TestCertificates.get());
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "outbox-tls-postgres-stop"));
            try (HikariDataSource dataSource = started.dataSource(started.url("localhost", started.certs.caPem()))) {
                OutboxMigrations.migrate(dataSource, OutboxTables.defaults());
            }
            instance = started;
        }
        return instance;
    }

    private static TlsPostgres start(TestCertificates certs) {
        try {
            Path hba = Files.createTempFile("outbox-tls-pg_hba", ".conf");
            Files.writeString(hba, """
                    local     all all     trust
                    hostssl   all all all trust
                    hostnossl all all all reject
                    """);
            return new TlsPostgres(
                    EmbeddedPostgres.builder()
                            .setServerConfig("ssl", "on")
                            .setServerConfig(
                                    "ssl_cert_file", certs.serverCertPem().toString())
                            .setServerConfig(
                                    "ssl_key_file", certs.serverKeyPem().toString())
                            .setServerConfig("hba_file", hba.toString())
                            .setServerConfig("listen_addresses", "localhost")
                            .start(),
                    certs);
        } catch (IOException e) {
            throw new UncheckedIOException("the TLS PostgreSQL did not start", e);
        }
    }

    int port() {
        return embedded.getPort();
    }

    /** A JDBC URL for {@code host} that verifies the server's certificate and name against {@code rootCert}. */
    String url(String host, Path rootCert) {
        return "jdbc:postgresql://" + host + ":" + port() + "/postgres?sslmode=verify-full&sslrootcert=" + rootCert;
    }

    /** A connection as postgres that verifies the server against the test CA. */
    Connection connect() throws SQLException {
        return DriverManager.getConnection(url("localhost", certs.caPem()), "postgres", "");
    }

    /** A pool as postgres for {@code url}. */
    HikariDataSource dataSource(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        config.setMaximumPoolSize(4);
        return new HikariDataSource(config);
    }

    void truncate() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute("truncate outbox_deliveries, outbox_events");
        }
    }

    /** Records {@code event} through jOOQ in a transaction of {@code connection}, as an application does. */
    static void record(Connection connection, Object event) {
        DSL.using(connection, SQLDialect.POSTGRES)
                .transaction(tx -> Outbox.builder().build().record(tx.dsl(), event));
    }

    /** The status of the one delivery there is. */
    OutboxDeliveryStatus status() throws SQLException {
        try (Connection c = connect()) {
            return DSL.using(c, SQLDialect.POSTGRES)
                    .select(OUTBOX_DELIVERIES.STATUS)
                    .from(OUTBOX_DELIVERIES)
                    .fetchSingle(OUTBOX_DELIVERIES.STATUS);
        }
    }

    private void close() {
        try {
            embedded.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
