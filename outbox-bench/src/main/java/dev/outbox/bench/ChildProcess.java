package dev.outbox.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;

/**
 * A JVM started as a separate process (the relay, the worker), with its peak resident memory
 * (VmHWM) and CPU seconds, also by thread, read from /proc when it ends.
 */
final class ChildProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;
    private long peakRssKb;
    private double cpuSeconds;
    /** Whether {@link #sample} also reads each thread's CPU ({@link #countThreads}): a /proc read per thread, only when asked. */
    private volatile boolean byThread;

    private Map<String, Double> threadCpuSeconds = Map.of();

    private ChildProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static ChildProcess start(
            String name,
            String mainClass,
            List<String> args,
            Map<String, String> env,
            Path logDir,
            List<String> jvmOptions)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.addAll(jvmOptions);
        command.add("-Dorg.jooq.no-logo=true");
        command.add("-Dorg.jooq.no-tips=true");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(args);
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return new ChildProcess(name, pb.start(), log);
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Reads VmHWM and CPU time while the process lives (call before it exits). */
    void sample() {
        try {
            for (String line :
                    Files.readAllLines(Path.of("/proc", String.valueOf(pid()), "status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("VmHWM:")) {
                    peakRssKb = Math.max(peakRssKb, Long.parseLong(line.replaceAll("[^0-9]", "")));
                }
            }
            cpuSeconds = cpuSecondsOf(pid()).orElse(cpuSeconds);
            if (byThread) {
                threadCpuSeconds = readThreadCpuSeconds();
            }
        } catch (IOException | RuntimeException e) {
            // the process ended between two samples: keep the last reading
        }
    }

    /**
     * CPU seconds of the live threads by name ({@code /proc/<pid>/task/<tid>/stat}; the kernel keeps 15
     * characters of a name, and a trailing number becomes {@code #}, so that a pool's threads add up).
     */
    private Map<String, Double> readThreadCpuSeconds() throws IOException {
        Map<String, Double> byName = new java.util.HashMap<>();
        try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid()), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                            .replaceAll("\\d+$", "#");
                    byName.merge(name, cpuSecondsOf(stat), Double::sum);
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return byName;
    }

    /**
     * The CPU seconds of process {@code pid} on this machine ({@code /proc/<pid>/stat}), or empty when
     * there is no such process (any more, or here).
     */
    static OptionalDouble cpuSecondsOf(long pid) {
        try {
            return OptionalDouble.of(cpuSecondsOf(Files.readString(Path.of("/proc", String.valueOf(pid), "stat"))));
        } catch (NoSuchFileException e) {
            return OptionalDouble.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the CPU of process " + pid, e);
        }
    }

    /** utime + stime of a process's or a thread's {@code stat} line, in seconds (clock ticks of 1/100 s). */
    static double cpuSecondsOf(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
    }

    /** From now on, each {@link #sample} also reads the CPU of each thread. */
    void countThreads() {
        byThread = true;
    }

    /** SIGTERM, then wait; the last sample stands for the whole run. */
    int stop(long timeoutSeconds) throws InterruptedException {
        sample();
        process.destroy();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
        return process.exitValue();
    }

    /**
     * Waits for the process to end by itself and returns its exit code; stops it (SIGTERM, then SIGKILL)
     * and throws when it has not ended within {@code timeout}.
     */
    int awaitExit(java.time.Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            stop(30);
            throw new IllegalStateException(name + " did not end within " + timeout + ", see " + log);
        }
        return process.exitValue();
    }

    String name() {
        return name;
    }

    Path log() {
        return log;
    }

    double peakRssMb() {
        return peakRssKb / 1024.0;
    }

    double cpuSeconds() {
        return cpuSeconds;
    }

    /** The CPU seconds of the threads alive at the last sample, by name, most first; empty unless {@link #countThreads}. */
    List<Map.Entry<String, Double>> threadCpuSeconds() {
        return threadCpuSeconds.entrySet().stream()
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .toList();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                stop(30);
            } catch (InterruptedException e) {
                process.destroyForcibly(); // no orphan left behind an interrupted bench
                Thread.currentThread().interrupt();
            }
        }
    }
}
