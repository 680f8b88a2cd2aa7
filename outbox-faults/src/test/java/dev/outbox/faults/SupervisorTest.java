package dev.outbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SupervisorTest {

    @TempDir
    Path dir;

    @Test
    void lastLineOfALogNamesTheUncaughtExceptionNotItsStackTrace() throws Exception {
        Path log = Files.writeString(
                dir.resolve("worker-1.1.log"),
                "2026-12-01T09:37:26.947Z [main] INFO Relay - started\n"
                        + "Exception in thread \"main\" java.lang.IllegalStateException: boom\n\tat a.B.c(B.java:1)\n"
                        + "Caused by: java.io.EOFException\n\tat d.E.f(E.java:2)\n\t... 3 more\n\n");

        assertThat(Supervisor.lastLine(log))
                .isEqualTo("Exception in thread \"main\" java.lang.IllegalStateException: boom");
    }

    @Test
    void lastLineDropsTheTimestampOfALogRecord() throws Exception {
        Path log = Files.writeString(
                dir.resolve("relay-1.1.log"),
                "2026-12-01T09:37:26.947Z [main] INFO Relay - relay loop stopped\n"
                        + "outbox-relay: database error (SocketException)\n");
        Path other = Files.writeString(
                dir.resolve("relay-1.2.log"), "2026-12-01T09:37:26.947Z [main] INFO Relay - relay loop stopped\n");

        assertThat(Supervisor.lastLine(log)).isEqualTo("outbox-relay: database error (SocketException)");
        assertThat(Supervisor.lastLine(other)).isEqualTo("[main] INFO Relay - relay loop stopped");
        assertThat(Supervisor.lastLine(dir.resolve("missing.log"))).isEqualTo("(no log)");
    }

    @Test
    void anUnaskedExitIsExplainedByItsUncaughtExceptionNotByWhatTheShutdownHooksLoggedAfterIt() throws Exception {
        Path log = Files.writeString(
                dir.resolve("worker-1.2.log"),
                "2026-12-01T09:37:26.947Z [main] INFO Worker - starting\n"
                        + "Exception in thread \"main\" dev.outbox.api.OutboxException: the worker could not start consuming\n\tat a.B.c(B.java:1)\n"
                        + "2026-12-01T09:37:27.001Z [fault-worker-stop] INFO com.zaxxer.hikari.HikariDataSource - fault-worker - Shutdown completed.\n");

        assertThat(Supervisor.exitLine(log))
                .isEqualTo(
                        "Exception in thread \"main\" dev.outbox.api.OutboxException: the worker could not start consuming");
        assertThat(Supervisor.exitLine(Files.writeString(
                        dir.resolve("relay-1.3.log"), "outbox-relay: database error (EOFException)\n")))
                .isEqualTo("outbox-relay: database error (EOFException)");
    }
}
