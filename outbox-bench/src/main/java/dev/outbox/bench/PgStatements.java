package dev.outbox.bench;

import dev.outbox.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The database side of a scenario: the top statements of {@code pg_stat_statements} by total execution
 * time, reset before the scenario. Needs the extension preloaded ({@code shared_preload_libraries});
 * without it, one line says so.
 */
final class PgStatements {

    private PgStatements() {}

    /** Creates the extension if it can and resets its counters; false (with one line printed) when it is not available. */
    static boolean reset(TestPostgres pg) {
        try (Connection c = pg.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            s.execute("SELECT pg_stat_statements_reset()");
            return true;
        } catch (SQLException e) {
            System.out.println("pg_stat_statements is not available on this server (" + e.getSQLState()
                    + "); start it with shared_preload_libraries=pg_stat_statements");
            return false;
        }
    }

    static void print(TestPostgres pg, String scenario, int rows) {
        String sql = "SELECT calls, total_exec_time, total_plan_time, rows, query FROM pg_stat_statements"
                + " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " ORDER BY total_exec_time + total_plan_time DESC LIMIT " + rows;
        try (Connection c = pg.connect(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            System.out.printf("%n%s: pg_stat_statements, top %d by execution + planning time%n", scenario, rows);
            System.out.println("  |   calls |  exec ms | plan ms |     rows | query");
            while (r.next()) {
                String query = r.getString(5).replaceAll("\\s+", " ").replaceAll("bench_[0-9a-f]{8}", "bench_*");
                System.out.printf("  | %7d | %8.0f | %7.0f | %8d | %s%n", r.getLong(1), r.getDouble(2), r.getDouble(3), r.getLong(4),
                        query.length() > 160 ? query.substring(0, 160) + "…" : query);
            }
        } catch (SQLException e) {
            System.out.println("pg_stat_statements could not be read (" + e.getSQLState() + ")");
        }
    }
}
