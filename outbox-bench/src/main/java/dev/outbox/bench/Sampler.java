package dev.outbox.bench;

import dev.outbox.testing.TestPostgres;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Reads the CPU and RSS of a scenario's child processes and the CPU of PostgreSQL's backends serving
 * them ({@link BackendCpu}) every {@value #PERIOD_MILLIS} ms, from when it is made until it is
 * closed; other periodic tasks of the scenario (a scrape) may share its threads.
 */
final class Sampler implements AutoCloseable {

    static final long PERIOD_MILLIS = 200;

    private final ScheduledExecutorService executor = Executors.newScheduledThreadPool(2);
    private final List<ChildProcess> processes;
    private final BackendCpu backends;

    Sampler(TestPostgres pg, List<ChildProcess> processes) {
        this.processes = List.copyOf(processes);
        this.backends = new BackendCpu(pg);
        // runs until close shuts the executor down
        var unused = executor.scheduleAtFixedRate(this::sample, 0, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Reads every process and the backends now. */
    void sample() {
        for (ChildProcess process : processes) {
            process.sample();
        }
        backends.sample();
    }

    /** Runs {@code task} every {@code period} on the sampler's threads, until it is closed. */
    void every(Duration period, Runnable task) {
        // runs until close shuts the executor down
        var unused = executor.scheduleAtFixedRate(task, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The backends' CPU as read so far (readable after {@link #close}). */
    BackendCpu backends() {
        return backends;
    }

    /** Stops the readings (one under way ends first) and closes the backends' connection; what was read stays. */
    @Override
    public void close() throws java.sql.SQLException {
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        backends.close();
    }
}
