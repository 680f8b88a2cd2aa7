package dev.outbox.worker.internal;

import dev.outbox.delivery.internal.DatabaseOutages;
import dev.outbox.delivery.internal.DeliveryLog;
import dev.outbox.delivery.internal.WorkerTransitions;
import dev.outbox.worker.WorkerLoggers;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Writes T5 (completed) for the jobs that returned normally, grouped: one thread takes what queues up
 * within {@link #LINGER_NANOS} of a group's first completion (at most {@link #MAX_GROUP}) and completes
 * it in one guarded UPDATE, then acknowledges the messages, with one multiple ack where the order allows
 * ({@link Settlement#ackAll}).
 */
final class CompletionWriter implements AutoCloseable {

    static final int MAX_GROUP = 1_000;
    /**
     * How long a group waits for more completions after its first one (10 ms), then is written: the
     * statement's cost is mostly per call (planning, the round trip, the commit), so that a steady
     * stream of jobs is completed in a few larger statements. It delays the completion and the ack,
     * never the start of a job.
     */
    static final long LINGER_NANOS = 10_000_000L;

    private static final Logger log = LoggerFactory.getLogger(WorkerLoggers.JOBS);

    /** A job that returned normally; {@code written} runs once its outcome is settled. */
    record Completed(WorkerTransitions.Dispatch dispatch, UUID eventId, Settlement settlement, Runnable written) {}

    private final DSLContext dsl;
    private final WorkerTransitions transitions;
    private final BlockingQueue<Completed> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean closing;
    private volatile boolean finished;

    CompletionWriter(DSLContext dsl, WorkerTransitions transitions, String name) {
        this.dsl = dsl;
        this.transitions = transitions;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void submit(Completed completed) {
        queue.add(completed);
        if (finished) {
            drainInline(); // a straggler after close: write it here rather than lose it
        }
    }

    private void run() {
        List<Completed> group = new ArrayList<>();
        try {
            while (!closing || !queue.isEmpty()) {
                Completed first = queue.poll(20, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                group.add(first);
                Gathering.rest(queue, group, MAX_GROUP, LINGER_NANOS, LINGER_NANOS, Gathering.Room.ANY);
                write(group);
                group.clear();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            finished = true;
            drainInline();
        }
    }

    private synchronized void drainInline() {
        List<Completed> group = new ArrayList<>();
        while (queue.drainTo(group, MAX_GROUP) > 0) {
            write(group);
            group.clear();
        }
    }

    @SuppressWarnings("try") // the MDC entries are held for the log call and removed by close(), never read
    private void write(List<Completed> group) {
        Set<UUID> completed;
        List<WorkerTransitions.Dispatch> dispatches =
                group.stream().map(Completed::dispatch).toList();
        try {
            completed = DatabaseRetry.until(
                    log,
                    "write the completion of " + group.size() + " deliveries",
                    "their messages stay unacknowledged",
                    () -> closing,
                    () -> transitions.complete(dsl, dispatches));
        } catch (DatabaseRetry.Stopped e) {
            // never acknowledge what the database did not record: the broker gives the messages to another worker
            log.warn(
                    "stopping while the database is unavailable: the completion of {} deliveries is not written; their messages are"
                            + " left unacknowledged for another worker",
                    group.size());
            for (Completed c : group) {
                c.written().run();
            }
            return;
        } catch (RuntimeException e) {
            // a fatal database error: drop the messages; the deliveries time out and are retried
            log.error(
                    "could not write the completion of {} deliveries ({}); their messages are rejected and the deliveries"
                            + " will be retried after their timeout",
                    group.size(),
                    DatabaseOutages.describe(e));
            for (Completed c : group) {
                c.settlement().reject();
                c.written().run();
            }
            return;
        }
        List<Settlement> acks = new ArrayList<>(group.size());
        for (Completed c : group) {
            acks.add(c.settlement());
            if (!completed.contains(c.dispatch().deliveryId())) {
                try (MDC.MDCCloseable ev = MDC.putCloseable(
                                DeliveryLog.MDC_EVENT_ID, c.eventId().toString());
                        MDC.MDCCloseable de = MDC.putCloseable(
                                DeliveryLog.MDC_DELIVERY_ID,
                                c.dispatch().deliveryId().toString())) {
                    log.warn(
                            "completion of delivery {} dispatch {} found no row: that dispatch is no longer current (a superseded"
                                    + " attempt finished late, or the delivery was settled meanwhile); nothing changed",
                            c.dispatch().deliveryId(),
                            c.dispatch().dispatchId());
                }
            }
        }
        Settlement.ackAll(acks);
        for (Completed c : group) {
            c.written().run();
        }
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        closing = true;
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        drainInline();
    }
}
