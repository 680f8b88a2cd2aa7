package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.worker.OutboxWorker;
import java.util.Objects;

/**
 * Starts an {@link OutboxWorker} with the application context and stops it gracefully with it.
 *
 * <p>The phase is {@link #PHASE}, that of Spring AMQP's listener containers: the worker starts after
 * the web server and the other lifecycle beans and stops before them, and every phase ends before
 * the context destroys its beans (the {@code DataSource} among them). The stop runs the worker's
 * {@link OutboxWorker#close()} off the caller's thread, as the context's shutdown phases expect: it
 * stops consuming, waits {@code outbox.worker.shutdown-grace} for running jobs (shorter than
 * {@code spring.lifecycle.timeout-per-shutdown-phase}), marks those still running
 * {@code worker_died} and closes the connection. A worker is started once: a context stopped and
 * started again does not restart it.
 */
public final class OutboxWorkerLifecycle extends ContextLifecycle {

    private final OutboxWorker worker;

    /** Starts and stops {@code worker}; with the context when {@code autoStartup}. */
    public OutboxWorkerLifecycle(OutboxWorker worker, boolean autoStartup) {
        super(autoStartup, "outbox-worker-stop");
        this.worker = Objects.requireNonNull(worker, "worker");
    }

    /** Connects and starts consuming; see {@link OutboxWorker#start()}. */
    @Override
    void open() {
        worker.start();
    }

    @Override
    void close() {
        worker.close();
    }
}
