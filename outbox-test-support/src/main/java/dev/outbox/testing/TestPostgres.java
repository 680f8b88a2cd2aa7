package dev.outbox.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The PostgreSQL server of this test JVM, resolved once: environment, local port, Testcontainers,
 * embedded server (see the package documentation).
 *
 * @param jdbcUrl the server's JDBC URL (a database, no schema)
 * @param user the user
 * @param password the password, empty for trust authentication
 * @param source where the server came from, for messages
 */
public record TestPostgres(String jdbcUrl, String user, String password, String source) {

    public static final String URL_ENV = "OUTBOX_TEST_JDBC_URL";
    public static final String USER_ENV = "OUTBOX_TEST_JDBC_USER";
    public static final String PASSWORD_ENV = "OUTBOX_TEST_JDBC_PASSWORD";
    static final String LOCAL_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";

    private static @Nullable TestPostgres instance;

    /** The server of this JVM, resolved on first use. */
    public static synchronized TestPostgres get() {
        if (instance == null) {
            instance = resolve();
        }
        return instance;
    }

    /** A new connection to the server (auto-commit on). */
    public Connection connect() throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        return DriverManager.getConnection(jdbcUrl, props);
    }

    private static TestPostgres resolve() {
        String url = System.getenv(URL_ENV);
        if (url != null && !url.isBlank()) {
            return new TestPostgres(url, envOr(USER_ENV, "postgres"), envOr(PASSWORD_ENV, ""), URL_ENV);
        }
        if (answers(LOCAL_URL + "?connectTimeout=2", "postgres", "")) {
            return new TestPostgres(LOCAL_URL, "postgres", "", "127.0.0.1:5432");
        }
        if (dockerAvailable()) {
            PostgreSQLContainer container = new PostgreSQLContainer("postgres:17-alpine");
            container.start();
            Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "outbox-test-postgres-stop"));
            return new TestPostgres(
                    container.getJdbcUrl(), container.getUsername(), container.getPassword(), "Testcontainers");
        }
        try {
            EmbeddedPostgres embedded = EmbeddedPostgres.builder().start();
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                try {
                                    embedded.close();
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            },
                            "outbox-test-postgres-stop"));
            return new TestPostgres(embedded.getJdbcUrl("postgres", "postgres"), "postgres", "", "embedded PostgreSQL");
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "No PostgreSQL for the tests: set " + URL_ENV
                            + ", run one on 127.0.0.1:5432, or make Docker available; the embedded server failed to start",
                    e);
        }
    }

    @SuppressWarnings("try") // the connection is opened only to see that the server answers
    static boolean answers(String url, String user, String password) {
        try (Connection ignored = DriverManager.getConnection(url, user, password)) {
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
