package dev.outbox.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MigrationsIT {

    /** The outbox migrations: V1 the tables, V2 the index of completed deliveries, V3 the start of a dispatch, V4 ordering, V5 the ordered claim's indexes. */
    static final int OUTBOX_MIGRATIONS = 5;

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @Test
    void appliesStandaloneAndReappliesAsANoOp() throws SQLException {
        OutboxTables tables = OutboxTables.defaults().withSchema(db.schema() + "_standalone");
        try {
            MigrateResult first = OutboxMigrations.migrate(db.dataSource(), tables);
            assertThat(first.migrationsExecuted).isEqualTo(OUTBOX_MIGRATIONS);
            assertThat(tablesIn(tables.schema()))
                    .contains("outbox_events", "outbox_deliveries", "outbox_flyway_history");

            MigrateResult second = OutboxMigrations.migrate(db.dataSource(), tables);
            assertThat(second.migrationsExecuted).isZero();
        } finally {
            dropSchema(tables.schema());
        }
    }

    @Test
    void appliesBesideTheApplicationsOwnMigrationsInTheSameSchema() throws SQLException {
        String schema = db.schema() + "_app";
        try {
            // the application's own V1, V2 with Flyway's default history table
            MigrateResult app = Flyway.configure()
                    .dataSource(db.dataSource())
                    .schemas(schema)
                    .defaultSchema(schema)
                    .locations("classpath:db/app")
                    .load()
                    .migrate();
            assertThat(app.migrationsExecuted).isEqualTo(2);

            // ours, in the same schema, with a history table of their own: version 1 again, no clash
            MigrateResult outbox = OutboxMigrations.migrate(
                    db.dataSource(), OutboxTables.defaults().withSchema(schema));
            assertThat(outbox.migrationsExecuted).isEqualTo(OUTBOX_MIGRATIONS);
            MigrateResult inbox = OutboxMigrations.migrateInbox(
                    db.dataSource(), OutboxTables.defaults().withSchema(schema));
            assertThat(inbox.migrationsExecuted).isEqualTo(1);

            assertThat(tablesIn(schema))
                    .contains(
                            "orders",
                            "customers",
                            "flyway_schema_history",
                            "outbox_events",
                            "outbox_deliveries",
                            "outbox_inbox",
                            "outbox_flyway_history",
                            "outbox_inbox_flyway_history");

            // and the application's next migrate still sees only its own history
            MigrateResult appAgain = Flyway.configure()
                    .dataSource(db.dataSource())
                    .schemas(schema)
                    .defaultSchema(schema)
                    .locations("classpath:db/app")
                    .load()
                    .migrate();
            assertThat(appAgain.migrationsExecuted).isZero();
            assertThat(OutboxMigrations.migrate(
                                    db.dataSource(), OutboxTables.defaults().withSchema(schema))
                            .migrationsExecuted)
                    .isZero();
        } finally {
            dropSchema(schema);
        }
    }

    @Test
    void oursFirstInTheSameSchemaNeedsTheApplicationsFlywayToBaselineAtVersionZero() throws SQLException {
        String schema = db.schema() + "_ours_first";
        try {
            assertThat(OutboxMigrations.migrate(
                                    db.dataSource(), OutboxTables.defaults().withSchema(schema))
                            .migrationsExecuted)
                    .isEqualTo(OUTBOX_MIGRATIONS); // V1 tables, V2 the completed-deliveries index, V3 started_at, V4
            // ordering, V5 ordered claim indexes

            // Flyway's default refuses a schema that holds tables but not its own history table
            assertThatThrownBy(() -> Flyway.configure()
                            .dataSource(db.dataSource())
                            .schemas(schema)
                            .defaultSchema(schema)
                            .locations("classpath:db/app")
                            .load()
                            .migrate())
                    .isInstanceOf(org.flywaydb.core.api.FlywayException.class)
                    .hasMessageContaining("non-empty schema");

            // baselineOnMigrate with baselineVersion 0 (the default, 1, would skip the application's own V1)
            MigrateResult app = Flyway.configure()
                    .dataSource(db.dataSource())
                    .schemas(schema)
                    .defaultSchema(schema)
                    .locations("classpath:db/app")
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    .load()
                    .migrate();
            assertThat(app.migrationsExecuted).isEqualTo(2);
            assertThat(tablesIn(schema))
                    .contains("orders", "customers", "flyway_schema_history", "outbox_events", "outbox_flyway_history");
        } finally {
            dropSchema(schema);
        }
    }

    @Test
    void oursFirstInASchemaOfTheirOwnLeavesTheApplicationsFlywayAsItIs() throws SQLException {
        String app = db.schema() + "_app_own";
        OutboxTables tables = OutboxTables.defaults().withSchema(db.schema() + "_outbox_own");
        try {
            OutboxMigrations.migrate(db.dataSource(), tables);

            MigrateResult result = Flyway.configure()
                    .dataSource(db.dataSource())
                    .schemas(app)
                    .defaultSchema(app)
                    .locations("classpath:db/app")
                    .load()
                    .migrate();

            assertThat(result.migrationsExecuted).isEqualTo(2);
        } finally {
            dropSchema(app);
            dropSchema(tables.schema());
        }
    }

    @Test
    void createsTheStatusEnumAndThePartialIndexes() throws SQLException {
        OutboxTables tables = OutboxTables.defaults().withSchema(db.schema() + "_idx");
        try {
            OutboxMigrations.migrate(db.dataSource(), tables);
            List<String> indexes = new ArrayList<>();
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery("SELECT indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = '"
                                    + tables.schema() + "' ORDER BY 1")) {
                while (rs.next()) {
                    indexes.add(rs.getString(1));
                }
            }
            assertThat(indexes)
                    .anySatisfy(i -> assertThat(i)
                            .startsWith("outbox_events_unrouted_idx")
                            .contains("WHERE (routed_at IS NULL)"));
            assertThat(indexes)
                    .anySatisfy(i -> assertThat(i)
                            .startsWith("outbox_deliveries_ready_idx")
                            .contains("WHERE (status = 'pending'"));
            assertThat(indexes)
                    .anySatisfy(i -> assertThat(i)
                            .startsWith("outbox_deliveries_timeout_idx")
                            .contains("WHERE (status = 'dispatched'"));
            assertThat(indexes)
                    .anySatisfy(i -> assertThat(i)
                            .startsWith("outbox_deliveries_ready_unkeyed_idx")
                            .contains("(available_at)")
                            .contains("(status = 'pending'")
                            .contains("(ordering_key IS NULL)"));
            assertThat(indexes)
                    .anySatisfy(i -> assertThat(i)
                            .startsWith("outbox_deliveries_ordered_dispatched_idx")
                            .contains("(job_type, queue_name, ordering_key)")
                            .contains("(status = 'dispatched'"));
            assertThat(indexes)
                    .anySatisfy(i -> assertThat(i)
                            .startsWith("outbox_deliveries_completed_idx")
                            .contains("(completed_at)")
                            .contains("WHERE (status = 'completed'"));
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement();
                    ResultSet rs =
                            s.executeQuery("SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum e"
                                    + " JOIN pg_type t ON t.oid = e.enumtypid JOIN pg_namespace n ON n.oid = t.typnamespace"
                                    + " WHERE n.nspname = '" + tables.schema()
                                    + "' AND t.typname = 'outbox_delivery_status'")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("pending,dispatched,completed,failed");
            }
        } finally {
            dropSchema(tables.schema());
        }
    }

    @Test
    void refusesASecondSetOfTablesInTheSameSchemaInsteadOfReportingSuccess() throws SQLException {
        String schema = db.schema() + "_two";
        OutboxTables a = new OutboxTables(schema, "ev_a", "del_a", "in_a");
        OutboxTables b = new OutboxTables(schema, "ev_b", "del_b", "in_b");
        try {
            assertThat(OutboxMigrations.migrate(db.dataSource(), a).migrationsExecuted)
                    .isEqualTo(OUTBOX_MIGRATIONS);

            assertThatThrownBy(() -> OutboxMigrations.migrate(db.dataSource(), b))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("schema '" + schema
                            + "' holds another set of outbox tables (its history table outbox_flyway_history"
                            + " records the migrations as applied) but not " + schema + ".ev_b, " + schema
                            + ".del_b: one schema holds"
                            + " one set of outbox tables; give these names a schema of their own (OutboxTables.withSchema), or use the"
                            + " names of the set already there");

            assertThat(tablesIn(schema))
                    .containsExactlyInAnyOrder("ev_a", "ev_a_keys", "del_a", "outbox_flyway_history");
            assertThat(OutboxMigrations.migrate(db.dataSource(), a).migrationsExecuted)
                    .as("the first set is untouched")
                    .isZero();
        } finally {
            dropSchema(schema);
        }
    }

    @Test
    void refusesASecondInboxInTheSameSchema() throws SQLException {
        String schema = db.schema() + "_inbox";
        OutboxTables a = new OutboxTables(schema, "ev_a", "del_a", "in_a");
        try {
            assertThat(OutboxMigrations.migrateInbox(db.dataSource(), a).migrationsExecuted)
                    .isEqualTo(1);

            assertThatThrownBy(() -> OutboxMigrations.migrateInbox(db.dataSource(), a.withInbox("in_b")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("history table outbox_inbox_flyway_history")
                    .hasMessageContaining("but not " + schema + ".in_b:");
            assertThat(tablesIn(schema)).containsExactlyInAnyOrder("in_a", "outbox_inbox_flyway_history");
        } finally {
            dropSchema(schema);
        }
    }

    @Test
    void migratesASecondSetInASchemaOfItsOwn() throws SQLException {
        OutboxTables a = new OutboxTables(db.schema() + "_set_a", "ev_a", "del_a", "in_a");
        OutboxTables b = new OutboxTables(db.schema() + "_set_b", "ev_b", "del_b", "in_b");
        try {
            assertThat(OutboxMigrations.migrate(db.dataSource(), a).migrationsExecuted)
                    .isEqualTo(OUTBOX_MIGRATIONS);
            assertThat(OutboxMigrations.migrate(db.dataSource(), b).migrationsExecuted)
                    .isEqualTo(OUTBOX_MIGRATIONS);

            assertThat(tablesIn(a.schema())).contains("ev_a", "del_a");
            assertThat(tablesIn(b.schema())).contains("ev_b", "del_b");
        } finally {
            dropSchema(a.schema());
            dropSchema(b.schema());
        }
    }

    private static List<String> tablesIn(String schema) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT tablename FROM pg_tables WHERE schemaname = '" + schema + "'")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    private static void dropSchema(String schema) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }
}
