package dev.outbox.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Running the servers' command-line tools, free ports, and removing a directory tree. */
final class Commands {

    private Commands() {}

    /** Runs {@code command} with {@code env} added, its output appended to {@code log}; throws unless it exits 0 in time. */
    static void run(List<String> command, Map<String, String> env, Path log, long timeoutSeconds) {
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        try {
            Process p = pb.start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command.subList(0, Math.min(2, command.size())))
                        + " did not finish within " + timeoutSeconds + " s, see " + log);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        command.get(0) + " " + (command.size() > 1 ? command.get(command.size() - 1) : "") + " exited "
                                + p.exitValue() + ", see " + log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command.get(0), e);
        }
    }

    /** Whether {@code program} is an executable on the PATH. */
    static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(java.io.File.pathSeparator, -1)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    /** The first port from {@code from} (and the {@code count - 1} after it) that nothing listens on at 127.0.0.1. */
    static int freePorts(int from, int count) {
        for (int port = from; port < from + 1_000; port++) {
            boolean free = true;
            for (int i = 0; i < count && free; i++) {
                free = free(port + i);
            }
            if (free) {
                return port;
            }
        }
        throw new IllegalStateException("no free port from " + from + " to " + (from + 1_000));
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        List<Path> paths = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(paths::add);
        } catch (IOException e) {
            return; // best effort: a file vanished while walking
        }
        for (Path p : paths) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                // best effort
            }
        }
    }
}
