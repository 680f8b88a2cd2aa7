package dev.outbox.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh schema of its own for one test class, migrated with the outbox migrations (unless
 * {@link #empty()}), dropped with everything in it after the class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();
 * }</pre>
 */
public final class PostgresSchemaExtension implements BeforeAllCallback, AfterAllCallback {

    private final boolean migrate;
    private final boolean inbox;
    private @Nullable String schema;
    private @Nullable HikariDataSource dataSource;

    private PostgresSchemaExtension(boolean migrate, boolean inbox) {
        this.migrate = migrate;
        this.inbox = inbox;
    }

    /** A schema with the outbox tables (default table names). */
    public static PostgresSchemaExtension migrated() {
        return new PostgresSchemaExtension(true, false);
    }

    /** A schema with the outbox tables and the inbox table. */
    public static PostgresSchemaExtension migratedWithInbox() {
        return new PostgresSchemaExtension(true, true);
    }

    /** An empty schema, for tests that migrate it themselves. */
    public static PostgresSchemaExtension empty() {
        return new PostgresSchemaExtension(false, false);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws SQLException {
        String name = "t_"
                + context.getRequiredTestClass()
                        .getSimpleName()
                        .toLowerCase(Locale.ROOT)
                        .replaceAll("[^a-z0-9]", "");
        if (name.length() > 24) {
            name = name.substring(0, 24);
        }
        schema = name + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        TestPostgres pg = TestPostgres.get();
        try (Connection c = pg.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(pg.jdbcUrl());
        config.setUsername(pg.user());
        config.setPassword(pg.password());
        config.setSchema(schema);
        config.setMaximumPoolSize(16);
        config.setMinimumIdle(0);
        config.setPoolName("test-" + schema);
        dataSource = new HikariDataSource(config);
        if (migrate) {
            OutboxMigrations.migrate(dataSource, tables());
            if (inbox) {
                OutboxMigrations.migrateInbox(dataSource, tables());
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws SQLException {
        if (dataSource != null) {
            dataSource.close();
        }
        if (schema != null) {
            try (Connection c = TestPostgres.get().connect();
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    /** The schema of this test class. */
    public String schema() {
        if (schema == null) {
            throw new IllegalStateException("the schema exists only between beforeAll and afterAll");
        }
        return schema;
    }

    /** The outbox's default table names in this class's schema. */
    public OutboxTables tables() {
        return OutboxTables.defaults().withSchema(schema());
    }

    /** A pooled data source whose connections have this class's schema as their current schema. */
    public DataSource dataSource() {
        if (dataSource == null) {
            throw new IllegalStateException("the data source exists only between beforeAll and afterAll");
        }
        return dataSource;
    }

    /** The server this schema lives on. */
    public TestPostgres server() {
        return TestPostgres.get();
    }

    /** Deletes every row of the outbox tables, for tests that share the class's schema. */
    public void truncate() throws SQLException {
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement()) {
            OutboxTables t = tables();
            s.execute("TRUNCATE " + t.schema() + "." + t.deliveries() + ", " + t.schema() + "." + t.events() + ", "
                    + t.schema() + "." + t.keys() + (inbox ? ", " + t.schema() + "." + t.inbox() : ""));
        }
    }

    /**
     * How many backends wait for a lock that backend {@code pid} holds, so that a test awaits a lock
     * wait instead of sleeping through one. {@code pid} is {@code pg_backend_pid()} of the holder.
     */
    public int waitersOn(int pid) throws SQLException {
        try (Connection c = dataSource().getConnection();
                PreparedStatement s = c.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid))")) {
            s.setInt(1, pid);
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        }
    }
}
