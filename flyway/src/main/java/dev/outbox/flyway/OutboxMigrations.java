package dev.outbox.flyway;

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
 * <p>Applications that drive Flyway themselves (a framework's auto-configuration, say) add
 * {@value #LOCATION} to a separate Flyway instance with the placeholders of
 * {@link OutboxTables#placeholders()}.
 */
public final class OutboxMigrations {

    /** The outbox tables. */
    public static final String LOCATION = "classpath:db/outbox";
    /** The opt-in inbox table of idempotent consumers. */
    public static final String INBOX_LOCATION = "classpath:db/outbox-inbox";
    /** The history table of {@link #LOCATION}. */
    public static final String HISTORY_TABLE = "outbox_flyway_history";
    /** The history table of {@link #INBOX_LOCATION}. */
    public static final String INBOX_HISTORY_TABLE = "outbox_inbox_flyway_history";

    private OutboxMigrations() {}

    /** Sets locations, placeholders, schema and history table of the outbox tables on {@code configuration}. */
    public static FluentConfiguration configure(FluentConfiguration configuration, OutboxTables tables) {
        return configure(configuration, tables, LOCATION, HISTORY_TABLE);
    }

    /** Like {@link #configure}, for the inbox table. */
    public static FluentConfiguration configureInbox(FluentConfiguration configuration, OutboxTables tables) {
        return configure(configuration, tables, INBOX_LOCATION, INBOX_HISTORY_TABLE);
    }

    /** Applies the outbox migrations to {@code dataSource}; a second call is a no-op. */
    public static MigrateResult migrate(DataSource dataSource, OutboxTables tables) {
        return configure(Flyway.configure().dataSource(dataSource), tables).load().migrate();
    }

    /** Applies the inbox migration to {@code dataSource}; a second call is a no-op. */
    public static MigrateResult migrateInbox(DataSource dataSource, OutboxTables tables) {
        return configureInbox(Flyway.configure().dataSource(dataSource), tables).load().migrate();
    }

    private static FluentConfiguration configure(FluentConfiguration configuration, OutboxTables tables,
            String location, String historyTable) {
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
