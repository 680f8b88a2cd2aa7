package dev.outbox.bench;

import dev.outbox.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The database side of a scenario: the top statements of {@code pg_stat_statements} by total execution
 * time, reset before the scenario, and how the time per call of the top ones moved along the scenario,
 * window by window ({@link #WINDOW_SECONDS}, counted from the reset, so the scenario's set-up is in the
 * first): a statement whose time per call grows at a steady load reads something that grows with the
 * tables. Needs the extension preloaded
 * ({@code shared_preload_libraries}); without it, one line says so.
 */
final class PgStatements implements AutoCloseable {

    static final int WINDOW_SECONDS = 10;
    /** How many of the top statements get their windows printed. */
    static final int WINDOWED = 5;
    /** The statements of the benchmark's database only (the server may serve others). */
    private static final String THIS_DATABASE =
            " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())";

    private static final String COUNTERS =
            "SELECT queryid, calls, total_exec_time, shared_blks_hit, rows FROM pg_stat_statements" + THIS_DATABASE;

    /** The counters of one statement at one moment. */
    record Counters(long calls, double execMillis, long blocksHit, long rows) {}

    /** The counters of every statement, by query id, {@code atSeconds} after the reset. */
    record Snapshot(long atSeconds, Map<Long, Counters> counters) {}

    private final TestPostgres pg;
    private final long resetNanos = System.nanoTime();
    private final List<Snapshot> snapshots = new ArrayList<>();
    private final ScheduledExecutorService every;

    private PgStatements(TestPostgres pg) {
        this.pg = pg;
        snapshots.add(new Snapshot(0, Map.of())); // the counters were just reset
        this.every = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-pg-stat");
            t.setDaemon(true);
            return t;
        });
        // runs until close shuts the executor down
        var unused = every.scheduleAtFixedRate(this::snapshot, WINDOW_SECONDS, WINDOW_SECONDS, TimeUnit.SECONDS);
    }

    /**
     * Creates the extension if it can, resets its counters and starts reading them every window; null
     * (with one line printed) when it is not available.
     */
    static PgStatements start(TestPostgres pg) {
        try (Connection c = pg.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            s.execute("SELECT pg_stat_statements_reset()");
        } catch (SQLException e) {
            System.out.println("pg_stat_statements is not available on this server (" + e.getSQLState()
                    + "); start it with shared_preload_libraries=pg_stat_statements");
            return null;
        }
        return new PgStatements(pg);
    }

    private void snapshot() {
        Map<Long, Counters> now = new HashMap<>();
        try (Connection c = pg.connect();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(COUNTERS)) {
            while (r.next()) {
                now.put(r.getLong(1), new Counters(r.getLong(2), r.getDouble(3), r.getLong(4), r.getLong(5)));
            }
        } catch (SQLException e) {
            return; // a window left out; the next one spans both
        }
        long atSeconds = Math.round((System.nanoTime() - resetNanos) / 1e9);
        synchronized (snapshots) {
            snapshots.add(new Snapshot(atSeconds, now));
        }
    }

    @Override
    public void close() {
        every.shutdownNow();
        try {
            every.awaitTermination(5, TimeUnit.SECONDS); // a snapshot under way ends before the last is taken
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops the windows and takes the last (from the last window to now), then prints the top {@code rows}
     * statements of the scenario and the windows of the top {@link #WINDOWED}.
     */
    void print(String scenario, int rows) {
        close();
        snapshot();
        String sql = "SELECT queryid, calls, total_exec_time, total_plan_time, rows, query FROM pg_stat_statements"
                + THIS_DATABASE
                + " ORDER BY total_exec_time + total_plan_time DESC LIMIT " + rows;
        List<Long> top = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        try (Connection c = pg.connect();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            System.out.printf("%n%s: pg_stat_statements, top %d by execution + planning time%n", scenario, rows);
            System.out.println("  |   calls |  exec ms | plan ms |     rows | query");
            while (r.next()) {
                String query = r.getString(6).replaceAll("\\s+", " ").replaceAll("bench_[0-9a-f]{8}", "bench_*");
                String shown = query.length() > 160 ? query.substring(0, 160) + "…" : query;
                System.out.printf(
                        "  | %7d | %8.0f | %7.0f | %8d | %s%n",
                        r.getLong(2), r.getDouble(3), r.getDouble(4), r.getLong(5), shown);
                top.add(r.getLong(1));
                texts.add(query.length() > 100 ? query.substring(0, 100) + "…" : query);
            }
        } catch (SQLException e) {
            System.out.println("pg_stat_statements could not be read (" + e.getSQLState() + ")");
            return;
        }
        List<Snapshot> taken;
        synchronized (snapshots) {
            taken = List.copyOf(snapshots);
        }
        if (taken.size() < 2) {
            return;
        }
        System.out.printf(
                "%s: the top %d statements by %d s window (calls, ms per call, rows per call, buffer hits per call)%n",
                scenario, Math.min(WINDOWED, top.size()), WINDOW_SECONDS);
        for (int i = 0; i < Math.min(WINDOWED, top.size()); i++) {
            System.out.printf("  %s%n", texts.get(i));
            for (String line : windows(taken, top.get(i))) {
                System.out.printf("    %s%n", line);
            }
        }
    }

    /**
     * The windows of one statement: for each pair of consecutive snapshots (the first taken at the reset,
     * then one every window, a window whose snapshot failed counted with the next) in which it was called,
     * the seconds the window spans, its calls and, per call, the execution time, rows and buffer hits of
     * that window. A snapshot without the statement counts as zero (it had not run yet).
     */
    static List<String> windows(List<Snapshot> snapshots, long queryId) {
        List<String> lines = new ArrayList<>();
        Counters zero = new Counters(0, 0, 0, 0);
        for (int w = 1; w < snapshots.size(); w++) {
            Counters before = snapshots.get(w - 1).counters().getOrDefault(queryId, zero);
            Counters after = snapshots.get(w).counters().getOrDefault(queryId, zero);
            long calls = after.calls() - before.calls();
            if (calls <= 0) {
                continue;
            }
            lines.add(String.format(
                    "%3d–%3d s: %7d calls, %7.3f ms, %7.1f rows, %8.1f hits",
                    snapshots.get(w - 1).atSeconds(),
                    snapshots.get(w).atSeconds(),
                    calls,
                    (after.execMillis() - before.execMillis()) / calls,
                    (double) (after.rows() - before.rows()) / calls,
                    (double) (after.blocksHit() - before.blocksHit()) / calls));
        }
        return lines;
    }
}
