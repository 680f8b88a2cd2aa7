package dev.outbox.bench;

import dev.outbox.testing.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * PostgreSQL's own CPU by client: the CPU time of the backends that serve each client, by the
 * {@code application_name} it connects with ({@link #client}). Neither {@code pg_stat_statements}
 * (execution only) nor the client's own CPU shows what a client's SQL costs the database.
 *
 * <p>Each {@link #sample} reads {@code /proc/<pid>/stat} of the known backends and, every
 * {@value #REFRESH_EVERY}th sample, asks {@code pg_stat_activity} for new ones on one connection of
 * its own (a new one per refresh would add a backend each time). A backend's last reading stands
 * after it ends. Where the server does not run on this machine, {@link #seconds} is empty.
 */
final class BackendCpu implements AutoCloseable {

    /** The {@code application_name} prefix of the clients counted here. */
    static final String PREFIX = "outbox-bench-";

    static final int REFRESH_EVERY = 10;
    /** The client name of the refreshes' own connection, which is not counted. */
    static final String SAMPLER = "sampler";

    private final TestPostgres pg;
    /** Backend pid → its client's name, and its CPU seconds at the last reading. */
    private final Map<Integer, String> clients = new HashMap<>();

    private final Map<Integer, Double> seconds = new HashMap<>();
    private boolean checked;
    private boolean local = true;
    private @Nullable String failure;
    private int samples;
    /** The connection of the refreshes, opened by the first. */
    private @Nullable Connection connection;

    BackendCpu(TestPostgres pg) {
        this.pg = pg;
    }

    /** The {@code application_name} of a client counted as {@code name} ({@code relay}, {@code worker}, {@code producers}). */
    static String client(String name) {
        return PREFIX + name;
    }

    /** The figure of the client counted as {@code name}, per 100,000 events. */
    static String metric(String name) {
        return "PostgreSQL CPU s per 100,000 events, serving the "
                + (name.equals("producers") ? "producers and the benchmark's checks" : name);
    }

    /** {@code url} with the JDBC driver's {@code ApplicationName} set to {@link #client client(name)}. */
    static String withClient(String url, String name) {
        if (url.contains("ApplicationName=")) {
            throw new IllegalArgumentException("the JDBC URL names its ApplicationName already: " + url);
        }
        return url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + client(name);
    }

    /**
     * Reads the CPU of the backends known, after asking the server for new ones every {@value #REFRESH_EVERY}th
     * time, and every time for the first {@value #REFRESH_EVERY}, when the clients started with it connect.
     */
    synchronized void sample() {
        if (!local || failure != null) {
            return;
        }
        // every sample for the first REFRESH_EVERY: a JVM started with the sampler connects after its first
        // sample, and a short one (REF-S1-FRESH at smoke scale) may end before the REFRESH_EVERY-th
        int sample = samples++;
        if (sample < REFRESH_EVERY || sample % REFRESH_EVERY == 0) {
            try {
                refresh();
            } catch (SQLException e) { // the figures would be short: none is given (the scenario's sampler goes on)
                failure = e.toString();
                System.out.println("PostgreSQL's CPU by client is not given: " + failure);
                return;
            }
        }
        for (Map.Entry<Integer, String> backend : clients.entrySet()) {
            ChildProcess.cpuSecondsOf(backend.getKey())
                    .ifPresent(s -> seconds.put(backend.getKey(), s)); // ended: the last reading stands
        }
    }

    private void refresh() throws SQLException {
        if (connection == null) {
            connection =
                    java.sql.DriverManager.getConnection(withClient(pg.jdbcUrl(), SAMPLER), pg.user(), pg.password());
        }
        try (Statement s = connection.createStatement()) {
            if (!checked) { // the first time: is this connection's own backend a process here?
                checked = true;
                try (ResultSet own = s.executeQuery("SELECT pg_backend_pid()")) {
                    own.next();
                    if (ChildProcess.cpuSecondsOf(own.getInt(1)).isEmpty()) {
                        local = false;
                        return;
                    }
                }
            }
            try (ResultSet r =
                    s.executeQuery("SELECT pid, application_name FROM pg_stat_activity WHERE application_name LIKE '"
                            + PREFIX + "%' AND pid <> pg_backend_pid()")) {
                while (r.next()) {
                    clients.putIfAbsent(r.getInt(1), r.getString(2));
                }
            }
        }
    }

    /**
     * Whether a backend of the client counted as {@code name} was found: one that connected and ended
     * between two of {@link #REFRESH_EVERY} samples is not, and a short client may have none.
     */
    synchronized boolean seen(String name) {
        return clients.containsValue(client(name));
    }

    /** Closes the connection of the refreshes; what was read stays readable. */
    @Override
    public synchronized void close() throws SQLException {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }

    /** The CPU seconds of the backends of the client counted as {@code name}, as last read; empty where they cannot be read. */
    synchronized Optional<Double> seconds(String name) {
        if (!local || failure != null) {
            return Optional.empty();
        }
        String client = client(name);
        double sum = 0;
        for (Map.Entry<Integer, Double> backend : seconds.entrySet()) {
            if (client.equals(clients.get(backend.getKey()))) {
                sum += backend.getValue();
            }
        }
        return Optional.of(sum);
    }
}
