package dev.outbox.flyway;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Applies the outbox migrations with the names an application chose.
 *
 * <p>The outbox keeps a Flyway history table of its own ({@value #HISTORY_TABLE}), so its versions
 * never clash with the application's {@code V1__...} migrations even in the same schema: run the
 * application's Flyway as before, and this one beside it.
 *
 * <pre>{@code
 * OutboxMigrations.migrate(dataSource, OutboxTables.defaults());
 * // or, to add settings of your own:
 * OutboxMigrations.configure(Flyway.configure().dataSource(dataSource), tables).load().migrate();
 * }</pre>
 *
 * <p>One schema holds one set of outbox tables: the migrations create the schema's enum types and
 * record themselves in one history table per schema. {@link #migrate} refuses, with an
 * {@code IllegalStateException} and before changing anything, a second set of names in a schema that
 * holds one already (the history says the migrations ran, but these tables are not there), where
 * Flyway alone would report success and create nothing. Give each set a schema of its own.
 *
 * <p>Applications that drive Flyway themselves (a framework's auto-configuration, say) add
 * {@value #LOCATION} to a separate Flyway instance with the placeholders of
 * {@link OutboxTables#placeholders()}.
 */
public final class OutboxMigrations {

    /** The outbox tables. */
    public static final String LOCATION = "classpath:db/outbox";
    /** The opt-in inbox table of idempotent consumers. */
    public static final String INBOX_LOCATION = "classpath:db/outbox-inbox";
    /** The optional roles script, one role per component ({@link OutboxRoles}, docs/roles.md). */
    public static final String ROLES_LOCATION = "classpath:db/outbox-roles";
    /** The history table of {@link #LOCATION}. */
    public static final String HISTORY_TABLE = "outbox_flyway_history";
    /** The history table of {@link #INBOX_LOCATION}. */
    public static final String INBOX_HISTORY_TABLE = "outbox_inbox_flyway_history";
    /** The history table of {@link #ROLES_LOCATION}. */
    public static final String ROLES_HISTORY_TABLE = "outbox_roles_flyway_history";

    private OutboxMigrations() {}

    /** Sets locations, placeholders, schema and history table of the outbox tables on {@code configuration}. */
    public static FluentConfiguration configure(FluentConfiguration configuration, OutboxTables tables) {
        return configure(configuration, tables, LOCATION, HISTORY_TABLE);
    }

    /** Like {@link #configure}, for the inbox table. */
    public static FluentConfiguration configureInbox(FluentConfiguration configuration, OutboxTables tables) {
        return configure(configuration, tables, INBOX_LOCATION, INBOX_HISTORY_TABLE);
    }

    /**
     * Sets location, placeholders (of the tables and the roles), schema and history table of the
     * roles script on {@code configuration}: for applications that drive Flyway themselves.
     */
    public static FluentConfiguration configureRoles(
            FluentConfiguration configuration, OutboxTables tables, OutboxRoles roles) {
        Map<String, String> placeholders = new LinkedHashMap<>(tables.placeholders());
        placeholders.putAll(roles.placeholders());
        return configure(configuration, tables, ROLES_LOCATION, ROLES_HISTORY_TABLE)
                .placeholders(placeholders);
    }

    /**
     * Creates the roles of {@code roles} when missing and grants each the privileges its component
     * needs on the tables of {@code tables} (docs/roles.md). Run it as the migration owner (the
     * owner of the tables), after {@link #migrate} (and {@link #migrateInbox}, for the inbox's
     * grants); creating a role needs CREATEROLE, so create them beforehand where the owner has none.
     * The script is a repeatable migration: Flyway runs it again when it changes with a new version,
     * and it leaves each role with exactly its grants.
     */
    public static MigrateResult migrateRoles(DataSource dataSource, OutboxTables tables, OutboxRoles roles) {
        return configureRoles(Flyway.configure().dataSource(dataSource), tables, roles)
                .load()
                .migrate();
    }

    /**
     * Applies the outbox migrations to {@code dataSource}; a second call is a no-op.
     *
     * @throws IllegalStateException when the schema already holds another set of outbox tables (see
     *     the class comment), before anything is changed
     */
    public static MigrateResult migrate(DataSource dataSource, OutboxTables tables) {
        Flyway flyway =
                configure(Flyway.configure().dataSource(dataSource), tables).load();
        refuseASecondSet(flyway, dataSource, tables, HISTORY_TABLE, List.of(tables.events(), tables.deliveries()));
        return flyway.migrate();
    }

    /**
     * Applies the inbox migration to {@code dataSource}; a second call is a no-op.
     *
     * @throws IllegalStateException when the schema already holds another inbox table, before anything is changed
     */
    public static MigrateResult migrateInbox(DataSource dataSource, OutboxTables tables) {
        Flyway flyway = configureInbox(Flyway.configure().dataSource(dataSource), tables)
                .load();
        refuseASecondSet(flyway, dataSource, tables, INBOX_HISTORY_TABLE, List.of(tables.inbox()));
        return flyway.migrate();
    }

    /**
     * One history table per schema records one set of tables: when it says the migrations ran but
     * the tables of {@code tables} are not there, they were run for other names, and Flyway would
     * report success and create nothing.
     */
    private static void refuseASecondSet(
            Flyway flyway, DataSource dataSource, OutboxTables tables, String historyTable, List<String> expected) {
        boolean applied = Arrays.stream(flyway.info().applied())
                .anyMatch(m -> !m.getType().isBaseline()
                        && m.getState().isApplied()
                        && !m.getState().isFailed());
        if (!applied) {
            return;
        }
        List<String> missing = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            for (String table : expected) {
                try (ResultSet rs = meta.getTables(null, tables.schema(), table, null)) {
                    if (!rs.next()) {
                        missing.add(tables.schema() + "." + table);
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot read the tables of schema '" + tables.schema() + "' ("
                            + e.getClass().getSimpleName() + ")",
                    e);
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException(
                    "schema '" + tables.schema() + "' holds another set of outbox tables (its history table "
                            + historyTable + " records the migrations as applied) but not " + String.join(", ", missing)
                            + ": one schema holds one set of outbox tables; give these names a schema of their own (OutboxTables.withSchema),"
                            + " or use the names of the set already there");
        }
    }

    private static FluentConfiguration configure(
            FluentConfiguration configuration, OutboxTables tables, String location, String historyTable) {
        return configuration
                .locations(location)
                .schemas(tables.schema())
                .defaultSchema(tables.schema())
                .table(historyTable)
                .placeholders(tables.placeholders())
                .placeholderReplacement(true)
                // The schema usually holds the application's tables already: start our own history
                // below V1 so that every outbox migration still runs.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .failOnMissingLocations(true);
    }
}
