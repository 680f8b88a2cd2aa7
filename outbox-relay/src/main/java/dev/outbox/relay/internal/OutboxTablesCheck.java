package dev.outbox.relay.internal;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.RelayException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Whether the outbox tables exist where the settings say, and are as new as this version needs,
 * read from the driver's metadata: a clear line naming the schema and the missing tables (or the
 * missing migration) instead of the driver's "relation does not exist".
 */
public final class OutboxTablesCheck {

    /** The column the latest migration added, and that migration: a database without it is behind. */
    static final String LATEST_COLUMN = "ordering_key";

    static final String LATEST_MIGRATION = "V4__outbox_ordering";

    private OutboxTablesCheck() {}

    /**
     * Fails fast when the outbox tables are missing from {@code tables.schema()}.
     *
     * @throws RelayException naming the schema and the missing tables, and that the migrations create them
     * @throws dev.outbox.relay.DatabaseUnavailableException when the database cannot be reached (a transient error)
     */
    public static void require(DataSource dataSource, OutboxTables tables) {
        String schema = tables.schema();
        try (Connection c = dataSource.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            String pattern = escaped(schema, meta.getSearchStringEscape());
            boolean schemaExists = false;
            try (ResultSet rs = meta.getSchemas(null, pattern)) {
                while (rs.next()) {
                    schemaExists |= schema.equals(rs.getString("TABLE_SCHEM"));
                }
            }
            if (!schemaExists) {
                throw new RelayException(
                        "the outbox tables are missing: schema " + schema + " does not exist; "
                                + "the migrations create it (outbox-relay migrate, or OutboxMigrations.migrate), or the schema name is wrong",
                        null);
            }
            Set<String> present = new HashSet<>();
            try (ResultSet rs = meta.getTables(null, pattern, "%", null)) {
                while (rs.next()) {
                    if (schema.equals(rs.getString("TABLE_SCHEM"))) {
                        present.add(rs.getString("TABLE_NAME"));
                    }
                }
            }
            List<String> missing = new ArrayList<>();
            for (String table : List.of(tables.events(), tables.deliveries())) {
                if (!present.contains(table)) {
                    missing.add(table);
                }
            }
            if (!missing.isEmpty()) {
                throw new RelayException(
                        "the outbox tables are missing: schema " + schema + " has no table "
                                + String.join(" and ", missing)
                                + "; the migrations create them (outbox-relay migrate, or OutboxMigrations.migrate), or the table names are wrong",
                        null);
            }
            boolean started = false;
            try (ResultSet rs = meta.getColumns(
                    null, pattern, escaped(tables.deliveries(), meta.getSearchStringEscape()), LATEST_COLUMN)) {
                while (rs.next()) {
                    started |= schema.equals(rs.getString("TABLE_SCHEM"));
                }
            }
            if (!started) {
                throw new RelayException(
                        "the outbox tables are behind this version: " + schema + "." + tables.deliveries()
                                + " has no column "
                                + LATEST_COLUMN + " (migration " + LATEST_MIGRATION
                                + "); run the migrations (outbox-relay migrate, or"
                                + " OutboxMigrations.migrate) before this relay",
                        null);
            }
        } catch (SQLException e) {
            throw DatabaseErrors.classify(e, dataSource);
        }
    }

    private static String escaped(String name, String escape) {
        return name.replace(escape, escape + escape).replace("_", escape + "_").replace("%", escape + "%");
    }
}
