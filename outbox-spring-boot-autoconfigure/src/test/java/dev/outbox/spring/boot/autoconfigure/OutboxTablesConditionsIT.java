package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * With {@code outbox.flyway.enabled=false} the application's own migrations make the outbox tables:
 * tables that are missing or behind fail the start, by name, with {@code ApplicationContextRunner} on
 * the real PostgreSQL. Each test has a schema of its own, dropped after it.
 */
class OutboxTablesConditionsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OutboxAutoConfiguration.class))
            .withBean(
                    DataSource.class,
                    () -> new DelegatingDataSource(
                            db.dataSource())); // the context's close leaves the class's pool open

    /** Runs {@code test} on a schema of its own, {@code <class schema>_<suffix>}, dropped after it. */
    private static void inOwnSchema(String suffix, Consumer<OutboxTables> test) throws SQLException {
        OutboxTables tables = OutboxTables.defaults().withSchema(db.schema() + "_" + suffix);
        try {
            test.accept(tables);
        } finally {
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + tables.schema() + " CASCADE");
            }
        }
    }

    @Test
    void missingTablesWithTheMigrationsOffFailTheStartNamingThem() {
        runner.withPropertyValues("outbox.schema=" + db.schema(), "outbox.flyway.enabled=false")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "outbox.flyway.enabled=false, and the outbox tables are missing: schema " + db.schema()
                                        + " has no table outbox_events and outbox_deliveries"));
    }

    @Test
    void tablesBehindThisVersionWithTheMigrationsOffFailTheStartNamingTheMigration() throws SQLException {
        inOwnSchema("v3", tables -> {
            OutboxMigrations.configure(Flyway.configure().dataSource(db.dataSource()), tables)
                    .target("3")
                    .load()
                    .migrate();
            runner.withPropertyValues("outbox.schema=" + tables.schema(), "outbox.flyway.enabled=false")
                    .run(context -> assertThat(context)
                            .getFailure()
                            .hasStackTraceContaining("outbox.flyway.enabled=false, and the outbox tables are behind"
                                    + " this version: " + tables.schema()
                                    + ".outbox_deliveries has no column ordering_key (migration V4__outbox_ordering)"));
        });
    }

    @Test
    void upToDateTablesWithTheMigrationsOffStart() throws SQLException {
        inOwnSchema("ok", tables -> {
            OutboxMigrations.migrate(db.dataSource(), tables);
            runner.withPropertyValues("outbox.schema=" + tables.schema(), "outbox.flyway.enabled=false")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context)
                                .hasSingleBean(OutboxTablesVerifier.class)
                                .doesNotHaveBean(OutboxMigrationsInitializer.class);
                    });
        });
    }

    @Test
    void withTheMigrationsOnTheyMakeTheTablesAndNothingChecksThem() throws SQLException {
        inOwnSchema(
                "on",
                tables -> runner.withPropertyValues("outbox.schema=" + tables.schema())
                        .run(context -> {
                            assertThat(context).hasNotFailed();
                            assertThat(context)
                                    .hasSingleBean(OutboxMigrationsInitializer.class)
                                    .doesNotHaveBean(OutboxTablesVerifier.class);
                        }));
    }

    @Test
    void withoutOutboxRelayOnTheClassPathNothingChecksTheTables() {
        runner.withClassLoader(new FilteredClassLoader(OutboxRelay.class))
                .withPropertyValues("outbox.schema=" + db.schema(), "outbox.flyway.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(OutboxTablesVerifier.class);
                });
    }
}
