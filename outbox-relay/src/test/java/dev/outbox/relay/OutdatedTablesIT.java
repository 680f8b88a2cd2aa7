package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.Connection;
import java.sql.Statement;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A relay refuses tables that an older version's migrations left behind, naming the migration it needs. */
class OutdatedTablesIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @Test
    void refusesTablesMigratedOnlyUpToVersion3NamingTheMissingMigration() throws Exception {
        OutboxTables tables = OutboxTables.defaults().withSchema(db.schema() + "_v3");
        try {
            OutboxMigrations.configure(Flyway.configure().dataSource(db.dataSource()), tables)
                    .target("3")
                    .load()
                    .migrate();

            assertThatThrownBy(() -> OutboxRelay.requireTables(db.dataSource(), tables))
                    .isInstanceOf(RelayException.class)
                    .hasMessage("the outbox tables are behind this version: " + tables.schema()
                            + ".outbox_deliveries has no column ordering_key"
                            + " (migration V4__outbox_ordering); run the migrations (outbox-relay migrate, or OutboxMigrations.migrate) before"
                            + " this relay");

            OutboxMigrations.migrate(db.dataSource(), tables);
            OutboxRelay.requireTables(db.dataSource(), tables); // up to date: no complaint
        } finally {
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + tables.schema() + " CASCADE");
            }
        }
    }
}
