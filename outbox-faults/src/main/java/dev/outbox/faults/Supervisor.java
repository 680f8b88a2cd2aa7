package dev.outbox.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Relays and workers as processes of their own, supervised as systemd's {@code Restart=always} would:
 * a process that exits unasked is recorded (exit code, last log line) and started again after a
 * second; a process killed by the suite is started again at once. Each start logs to a file of its
 * own ({@code relay-1.3.log}: relay 1, third start).
 */
final class Supervisor implements AutoCloseable {

    enum Kind {
        RELAY,
        WORKER
    }

    /** A process that exited without being asked to. */
    record Exit(String name, Kind kind, long pid, int exitCode, String lastLogLine, Instant at, String log) {}

    /** A kill -9 the suite sent. */
    /**
     * A kill -9: {@code at} when SIGKILL was sent (from then on the broker may hand the process's
     * unacknowledged messages to others), {@code reaped} when the process was seen gone; it died in
     * between, and PostgreSQL may still time a statement the process sent before it died after {@code at}.
     */
    record Kill(String name, Kind kind, long pid, Instant at, Instant reaped) {}

    static final String RELAY_MAIN = "dev.outbox.relay.cli.RelayCommand";
    static final String RELAY_READY = "relay loop started";
    private static final Duration RESTART_DELAY = Duration.ofSeconds(1);

    private final Path logDir;
    private final Map<String, String> env;
    private final List<Slot> slots = new ArrayList<>();
    private final List<Exit> exits = Collections.synchronizedList(new ArrayList<>());
    private final List<Kill> kills = Collections.synchronizedList(new ArrayList<>());
    private final Map<Long, String> logsByPid = new java.util.concurrent.ConcurrentHashMap<>();
    private final Thread monitor;
    private volatile boolean supervising = true;

    private static final class Slot {
        final String name;
        final Kind kind;
        int starts;
        Process process;
        Path log;
        long restartAtNanos;

        @SuppressWarnings("NullAway.Init") // spawn sets process and log before a slot is used; a failed spawn throws
        Slot(String name, Kind kind) {
            this.name = name;
            this.kind = kind;
        }
    }

    Supervisor(int relays, int workers, Map<String, String> env, Path logDir) {
        this.env = Map.copyOf(env);
        this.logDir = logDir;
        for (int i = 1; i <= relays; i++) {
            slots.add(new Slot("relay-" + i, Kind.RELAY));
        }
        for (int i = 1; i <= workers; i++) {
            slots.add(new Slot("worker-" + i, Kind.WORKER));
        }
        for (Slot s : slots) {
            spawn(s);
        }
        monitor = new Thread(this::watch, "fault-supervisor");
        monitor.setDaemon(true);
        monitor.start();
    }

    /** Waits until every process has logged that it is ready. */
    void awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Slot s : slots) {
            String marker = s.kind == Kind.RELAY ? RELAY_READY : FaultWorker.READY;
            while (!logHolds(s, marker)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(s.name + " did not get ready within " + timeout + ", see " + s.log);
                }
                Thread.sleep(100);
            }
        }
    }

    private synchronized boolean logHolds(Slot s, String marker) {
        try {
            return Files.exists(s.log)
                    && Files.readString(s.log, StandardCharsets.UTF_8).contains(marker);
        } catch (IOException e) {
            return false;
        }
    }

    /** Kills one process with SIGKILL and starts it again at once; returns what was killed. */
    synchronized Kill killAndRestart(int index) {
        Slot s = slots.get(index);
        long pid = s.process.pid();
        Instant signalled = Instant.now();
        s.process.destroyForcibly(); // SIGKILL
        try {
            s.process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Kill kill = new Kill(s.name, s.kind, pid, signalled, Instant.now());
        kills.add(kill);
        spawn(s);
        return kill;
    }

    int size() {
        return slots.size();
    }

    List<Exit> exits() {
        synchronized (exits) {
            return List.copyOf(exits);
        }
    }

    /** The log file of each process started, by pid ({@code worker-2.3.log}). */
    Map<Long, String> logsByPid() {
        return Map.copyOf(logsByPid);
    }

    List<Kill> kills() {
        synchronized (kills) {
            return List.copyOf(kills);
        }
    }

    /** What happened when every process got SIGTERM at the end. */
    record Stop(String name, Kind kind, boolean stopped, int exitCode, double seconds, String lastLogLine) {}

    /** Stops supervising, sends SIGTERM to every process and waits up to {@code timeout} for each. */
    List<Stop> terminateAll(Duration timeout) throws InterruptedException {
        supervising = false;
        monitor.interrupt();
        monitor.join(5_000);
        List<Stop> result = new ArrayList<>();
        synchronized (this) {
            long start = System.nanoTime();
            for (Slot s : slots) {
                s.process.destroy(); // SIGTERM
            }
            long deadline = start + timeout.toNanos();
            for (Slot s : slots) {
                boolean stopped = s.process.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                double seconds = (System.nanoTime() - start) / 1e9;
                if (!stopped) {
                    s.process.destroyForcibly();
                    s.process.waitFor(10, TimeUnit.SECONDS);
                }
                result.add(new Stop(
                        s.name, s.kind, stopped, stopped ? s.process.exitValue() : -1, seconds, lastLine(s.log)));
            }
        }
        return result;
    }

    /** Kills whatever still runs (a failed run, the JVM going down). */
    @Override
    public synchronized void close() {
        supervising = false;
        monitor.interrupt();
        for (Slot s : slots) {
            if (s.process != null && s.process.isAlive()) {
                s.process.destroyForcibly();
            }
        }
    }

    private void watch() {
        while (supervising) {
            synchronized (this) {
                long now = System.nanoTime();
                for (Slot s : slots) {
                    if (!supervising) {
                        break;
                    }
                    if (s.process.isAlive()) {
                        continue;
                    }
                    if (s.restartAtNanos == 0) {
                        exits.add(new Exit(
                                s.name,
                                s.kind,
                                s.process.pid(),
                                s.process.exitValue(),
                                exitLine(s.log),
                                Instant.now(),
                                s.log.getFileName().toString()));
                        s.restartAtNanos = now + RESTART_DELAY.toNanos();
                    } else if (now >= s.restartAtNanos) {
                        spawn(s);
                    }
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void spawn(Slot s) {
        s.starts++;
        s.restartAtNanos = 0;
        s.log = logDir.resolve(s.name + "." + s.starts + ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(
                "-Xmx192m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dorg.jooq.no-logo=true",
                "-Dorg.jooq.no-tips=true",
                "-cp",
                System.getProperty("java.class.path")));
        if (s.kind == Kind.RELAY) {
            command.addAll(List.of(RELAY_MAIN, "relay", "--loop", "--sleep=1"));
        } else {
            command.add(FaultWorker.MAIN);
        }
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(s.log.toFile());
        pb.environment().putAll(env);
        try {
            s.process = pb.start();
            logsByPid.put(s.process.pid(), s.log.getFileName().toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + s.name, e);
        }
    }

    /**
     * Why a process exited unasked: the "Exception in thread" line of an uncaught exception when the
     * log has one (shutdown hooks log after it), else {@link #lastLine}.
     */
    static String exitLine(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                String line = lines.get(i).strip();
                if (line.startsWith("Exception in thread")) {
                    return line.length() > 200 ? line.substring(0, 200) + "…" : line;
                }
            }
        } catch (IOException | RuntimeException e) {
            return "(no log)";
        }
        return lastLine(log);
    }

    /**
     * The last non-blank line of a log that is not part of a stack trace (so an uncaught exception
     * shows as its "Exception in thread" line), without its timestamp, at most 200 characters.
     */
    static String lastLine(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                String line = lines.get(i).strip();
                if (!line.isEmpty()
                        && !line.startsWith("at ")
                        && !line.startsWith("Caused by:")
                        && !line.matches("\\.\\.\\. \\d+ more")) {
                    line = line.replaceFirst("^\\d{4}-\\d\\d-\\d\\dT[0-9:.]+(Z|[+-]\\d\\d:\\d\\d)\\s+", "");
                    return line.length() > 200 ? line.substring(0, 200) + "…" : line;
                }
            }
            return "(empty log)";
        } catch (IOException | RuntimeException e) {
            return "(no log)";
        }
    }
}
