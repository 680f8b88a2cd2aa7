package dev.outbox.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Processes that do nothing but spin, each taking a core from the run beside them (a busy machine,
 * issue 37): a shell's empty endless loop, so that they hold no memory and die with SIGKILL.
 */
final class CpuHogs implements AutoCloseable {

    private final List<Process> processes;

    private CpuHogs(List<Process> processes) {
        this.processes = processes;
    }

    static CpuHogs start(int count) {
        List<Process> started = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                started.add(new ProcessBuilder("sh", "-c", "while :; do :; done")
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start());
            }
        } catch (IOException e) {
            started.forEach(Process::destroyForcibly);
            throw new UncheckedIOException("cannot start a CPU hog (sh)", e);
        }
        return new CpuHogs(started);
    }

    /** Kills every hog; safe to call twice. */
    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
    }
}
