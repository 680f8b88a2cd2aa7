package dev.outbox.worker.internal;

import dev.outbox.api.EventSerializer;
import dev.outbox.delivery.LogText;
import dev.outbox.delivery.internal.DatabaseOutages;
import dev.outbox.delivery.internal.DeliveryLog;
import dev.outbox.delivery.internal.DeliveryMessage;
import dev.outbox.delivery.internal.FailureReason;
import dev.outbox.delivery.internal.LogDigest;
import dev.outbox.delivery.internal.MalformedMessageException;
import dev.outbox.delivery.internal.RetryOutcome;
import dev.outbox.delivery.internal.WorkerTransitions;
import dev.outbox.delivery.internal.WorkerTransitions.Dispatch;
import dev.outbox.worker.JobTracer;
import dev.outbox.worker.WorkerLoggers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * What the worker does with one message: read the ids, find the delivery, require it dispatched with
 * the message's dispatch id and job type, load and deserialize the event, call the handler, write the
 * outcome (T5 grouped through {@link CompletionWriter}; T6, T7, T8 at once), and only then acknowledge.
 * Nothing a message holds can make it throw: a message that cannot be handled is rejected without
 * requeue, with a WARNING naming the ids that could be read.
 */
final class MessageProcessor {

    private static final Logger log = LoggerFactory.getLogger(WorkerLoggers.JOBS);

    /** A message whose dispatch this worker is handling right now. */
    static final class Running {
        final String queue;
        final DeliveryMessage message;
        final Dispatch dispatch;
        final UUID eventId;
        final String jobType;
        final Settlement settlement;
        volatile boolean inHandler;
        /** Whether this worker's lookup set the dispatch's start (T2s), so that it renews the start while the run waits here. */
        volatile boolean startedHere;
        /** Set by the first of the handler's return and the shutdown's worker death: that one writes and counts the outcome. */
        private final AtomicBoolean ended = new AtomicBoolean();

        boolean end() {
            return ended.compareAndSet(false, true);
        }

        Running(String queue, DeliveryMessage message, Settlement settlement) {
            this.queue = queue;
            this.message = message;
            this.dispatch = new Dispatch(message.deliveryId(), message.dispatchId());
            this.eventId = message.eventId();
            this.jobType = message.jobType();
            this.settlement = settlement;
        }
    }

    private final DSLContext dsl;
    private final DeliveryQueries queries;
    private final WorkerTransitions transitions;
    private final CompletionWriter completions;
    private final EventSerializer serializer;
    private final Map<String, Registration<?>> handlers;
    private final Map<UUID, Running> running = new ConcurrentHashMap<>();
    private final BooleanSupplier stopping;
    private final WorkerMeters meters;
    private final JobTracer tracing;
    /** Stale drops counted per queue, final failures bounded per interval. */
    private final LogDigest digest = new LogDigest(log);

    MessageProcessor(
            DSLContext dsl,
            DeliveryQueries queries,
            WorkerTransitions transitions,
            CompletionWriter completions,
            EventSerializer serializer,
            Map<String, Registration<?>> handlers,
            BooleanSupplier stopping,
            WorkerMeters meters,
            JobTracer tracing) {
        this.stopping = stopping;
        this.meters = meters;
        this.tracing = tracing;
        this.dsl = dsl;
        this.queries = queries;
        this.transitions = transitions;
        this.completions = completions;
        this.serializer = serializer;
        this.handlers = Map.copyOf(handlers);
    }

    /**
     * Reads a message on the consumer's side. Returns the run to look up and hand to a handler thread,
     * or null when the message was settled here: malformed (rejected, and T7 {@code bad_message} when its
     * delivery and dispatch ids could be read), or a copy of a dispatch this worker has in hand (acknowledged
     * and dropped). Never throws.
     */
    @Nullable
    Running accept(String queue, byte[] body, Settlement settlement) {
        DeliveryMessage message;
        try {
            message = DeliveryMessage.fromJson(body);
        } catch (MalformedMessageException e) {
            malformed(queue, e, settlement);
            meters.dropped(queue, WorkerMeters.Drop.BAD_MESSAGE);
            return null;
        } catch (RuntimeException e) {
            log.warn(
                    "unreadable message on queue {} rejected ({})",
                    queue,
                    e.getClass().getName());
            settlement.reject();
            meters.dropped(queue, WorkerMeters.Drop.BAD_MESSAGE);
            return null;
        }
        Running run = new Running(queue, message, settlement);
        if (running.putIfAbsent(message.dispatchId(), run) != null) {
            putIds(message.eventId(), message.deliveryId());
            try {
                log.warn(
                        "message for delivery {} dispatch {} arrived again while that dispatch is being handled here; dropped",
                        message.deliveryId(),
                        message.dispatchId());
            } finally {
                clearIds();
            }
            settlement.ack();
            meters.dropped(queue, WorkerMeters.Drop.DUPLICATE);
            return null;
        }
        return run;
    }

    /**
     * Marks the dispatches of {@code runs} started (T2s; {@code again}: also those started already,
     * see {@link WorkerTransitions#start}), then reads their deliveries with their events in one query. While the database is
     * unavailable the query is tried again with backoff, the messages unacknowledged; when the queue's
     * consumer stops meanwhile ({@code stopping}), the messages are left unacknowledged for the broker to
     * give to another worker, and the result is null. On a fatal database error every message is
     * rejected (its delivery times out and is retried) and the result is null.
     */
    @Nullable
    Map<UUID, DeliveryRow> lookup(List<Running> runs, boolean again, BooleanSupplier stopping) {
        List<UUID> ids = runs.stream().map(r -> r.dispatch.deliveryId()).toList();
        List<Dispatch> dispatches = runs.stream().map(r -> r.dispatch).toList();
        try {
            return DatabaseRetry.until(
                    log,
                    "read " + runs.size() + " deliveries",
                    "their messages stay unacknowledged",
                    () -> stopping.getAsBoolean() || this.stopping.getAsBoolean(),
                    () -> {
                        Set<UUID> started = transitions.start(
                                dsl, dispatches, again); // T2s: picked up, the job's time counts from now
                        for (Running r : runs) {
                            r.startedHere = started.contains(r.dispatch.deliveryId());
                        }
                        return queries.lookup(ids);
                    });
        } catch (DatabaseRetry.Stopped e) {
            log.warn(
                    "stopping while the database is unavailable: {} messages left unacknowledged for another worker",
                    runs.size());
            for (Running r : runs) {
                running.remove(r.dispatch.dispatchId(), r);
            }
            return null;
        } catch (RuntimeException e) {
            log.error(
                    "could not read {} deliveries ({}); their messages are rejected, the deliveries will time out and be retried",
                    runs.size(),
                    DatabaseOutages.describe(e));
            for (Running r : runs) {
                r.settlement.reject();
                running.remove(r.dispatch.dispatchId(), r);
                meters.dropped(r.queue, WorkerMeters.Drop.DATABASE_ERROR);
            }
            return null;
        } catch (Error e) {
            for (Running r : runs) {
                r.settlement.reject();
                running.remove(r.dispatch.dispatchId(), r);
            }
            throw e;
        }
    }

    /** A run accepted but never started (shutdown): forgotten, and left unacknowledged so that the channel's close gives it back. */
    void abandon(Running run) {
        running.remove(run.dispatch.dispatchId(), run);
    }

    /** Checks, runs the job and writes the outcome, on a handler thread; {@code row} is null for an unknown delivery. Never throws. */
    void run(String queue, Running run, @Nullable DeliveryRow row) {
        DeliveryMessage message = run.message;
        boolean handedOver = false;
        try {
            if (row == null) {
                putIds(message.eventId(), message.deliveryId());
                try {
                    log.warn(
                            "message for unknown delivery {} dispatch {} on queue {}; dropped",
                            message.deliveryId(),
                            message.dispatchId(),
                            queue);
                } finally {
                    clearIds();
                }
                run.settlement.ack();
                meters.dropped(queue, WorkerMeters.Drop.UNKNOWN_DELIVERY);
                return;
            }
            putIds(row.eventId(), row.deliveryId());
            try {
                handedOver = handle(message, row, run);
            } finally {
                clearIds();
            }
        } catch (DatabaseRetry.Stopped e) {
            // the worker stops while the database cannot take the outcome: the broker gives the message to another
            // worker
            log.warn(
                    "stopping while the database is unavailable: the outcome of delivery {} dispatch {} is not written; its message"
                            + " is left unacknowledged for another worker",
                    message.deliveryId(),
                    message.dispatchId());
        } catch (Throwable t) {
            // a fatal database error, or an Error while writing an outcome (out of memory, say): keep the consumer
            // alive
            log.error(
                    "could not settle delivery {} dispatch {} ({}); message rejected, the delivery will time out and be retried",
                    message.deliveryId(),
                    message.dispatchId(),
                    t.getClass().getName());
            run.settlement.reject();
            meters.dropped(queue, WorkerMeters.Drop.DATABASE_ERROR);
        } finally {
            if (!handedOver) {
                running.remove(run.dispatch.dispatchId(), run);
            }
        }
    }

    private boolean handle(DeliveryMessage message, DeliveryRow row, Running run) {
        Dispatch dispatch = run.dispatch;
        if (!row.isCurrent(message.dispatchId())) {
            if (digest.warn(
                    "message dropped without running the job: its dispatch was settled or sent again",
                    run.queue,
                    "delivery " + row.deliveryId() + " dispatch " + message.dispatchId() + " (now " + row.status()
                            + ")")) {
                log.warn(
                        "message for delivery {} dispatch {} dropped without running the job: the delivery is {} with dispatch {}"
                                + " (settled, or dispatched again)",
                        row.deliveryId(),
                        message.dispatchId(),
                        row.status(),
                        row.dispatchId());
            }
            run.settlement.ack();
            meters.dropped(run.queue, WorkerMeters.Drop.STALE_DISPATCH);
            return false;
        }
        if (!row.job()) {
            // a job message naming a publish route's delivery: the relay completes those on the broker's confirm
            log.warn(
                    "message for delivery {} dispatch {} names a publish route's delivery, which no worker runs; dropped",
                    row.deliveryId(),
                    message.dispatchId());
            run.settlement.reject();
            meters.dropped(run.queue, WorkerMeters.Drop.BAD_MESSAGE);
            return false;
        }
        if (!row.jobType().equals(message.jobType())) {
            log.warn(
                    "message for delivery {} dispatch {} names job type {} but the delivery's job type is {}",
                    row.deliveryId(),
                    message.dispatchId(),
                    LogText.of(message.jobType()),
                    row.jobType());
            failAndAck(row, run, FailureReason.BAD_MESSAGE, null);
            meters.dropped(run.queue, WorkerMeters.Drop.JOB_TYPE_MISMATCH);
            return false;
        }
        Registration<?> registration = handlers.get(row.jobType());
        if (registration == null) {
            log.warn(
                    "no handler for job type {} (delivery {}, dispatch {}, queue {})",
                    row.jobType(),
                    row.deliveryId(),
                    message.dispatchId(),
                    LogText.of(row.queue()));
            failAndAck(row, run, FailureReason.UNKNOWN_JOB_TYPE, null);
            meters.dropped(run.queue, WorkerMeters.Drop.UNKNOWN_JOB_TYPE);
            return false;
        }
        Object event;
        try {
            event = Objects.requireNonNull(serializer.deserialize(row.payload(), registration.eventClass()), "event");
        } catch (RuntimeException e) {
            log.warn(
                    "event {} of delivery {} (type {}) cannot be read as {} ({})",
                    row.eventId(),
                    row.deliveryId(),
                    row.eventType(),
                    registration.eventClass().getName(),
                    e.getClass().getName());
            failAndAck(row, run, FailureReason.UNDESERIALIZABLE_EVENT, null);
            meters.dropped(run.queue, WorkerMeters.Drop.UNDESERIALIZABLE_EVENT);
            return false;
        }

        Throwable failure = null;
        // the trace context is the event's, from its row: a message's own claim is never trusted for it
        JobContextImpl job = new JobContextImpl(row, dispatch.dispatchId(), queries);
        JobTracer.JobSpan span = tracing.start(job);
        long started = meters.handlerStarted(run.queue, row.jobType(), row.createdAt());
        run.inHandler = true;
        try {
            registration.invoke(event, job);
        } catch (Throwable t) {
            failure = t;
        } finally {
            run.inHandler = false;
            span.end(failure);
            meters.handlerEnded(run.queue, row.jobType(), started);
        }
        if (!run.end()) {
            return false; // the shutdown marked it worker_died while the handler ran: that outcome stands, counted once
        }
        boolean interrupted = Thread.interrupted(); // write the outcome even if the job left the thread interrupted
        try {
            HandlerResult result = HandlerResult.of(failure);
            if (result == HandlerResult.COMPLETE) {
                meters.jobEnded(run.queue, row.jobType(), WorkerMeters.Outcome.COMPLETED, null);
                completions.submit(new CompletionWriter.Completed(
                        dispatch, row.eventId(), run.settlement, () -> running.remove(dispatch.dispatchId(), run)));
                return true;
            }
            String thrown = Objects.requireNonNull(failure).getClass().getName();
            if (result == HandlerResult.RETRY) {
                Optional<RetryOutcome> outcome = write(
                        "write the retry of delivery " + dispatch.deliveryId(),
                        () -> transitions.retryOrFail(dsl, dispatch));
                if (outcome.isPresent()) {
                    DeliveryLog.retryOutcome(log, digest, outcome.get(), "retryable_error");
                } else {
                    notCurrent("retry", dispatch);
                }
                meters.jobEnded(
                        run.queue,
                        row.jobType(),
                        outcome.map(RetryOutcome::retried).orElse(!row.lastAttempt())
                                ? WorkerMeters.Outcome.RETRY
                                : WorkerMeters.Outcome.FAILED,
                        FailureReason.RETRIES_EXHAUSTED);
                run.settlement.ack();
            } else if (result == HandlerResult.DIE) {
                writeDeath(run, thrown);
            } else {
                failAndAck(row, run, FailureReason.JOB_FAILED, thrown);
                meters.jobEnded(run.queue, row.jobType(), WorkerMeters.Outcome.FAILED, FailureReason.JOB_FAILED);
            }
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** T7 with a safe reason, logged, then the ack. */
    private void failAndAck(DeliveryRow row, Running run, FailureReason reason, @Nullable String exceptionClass) {
        boolean failed = write(
                "write the failure of delivery " + run.dispatch.deliveryId(),
                () -> transitions.fail(dsl, run.dispatch, reason));
        if (failed && digest.error("delivery " + row.deliveryId() + " reason " + reason)) {
            log.error(
                    "delivery {} of event {} ({}, queue {}): failed for good on attempt {}, reason {}{}",
                    row.deliveryId(),
                    row.eventId(),
                    row.jobType(),
                    LogText.of(row.queue()),
                    row.attempts(),
                    reason,
                    exceptionClass == null ? "" : " (" + exceptionClass + ")");
        } else if (!failed) {
            notCurrent("failure", run.dispatch);
        }
        run.settlement.ack();
    }

    /**
     * T8 for a dispatch whose job could not finish before shutdown, logged, then the ack; nothing when
     * its handler returned first (its own outcome is written and counted).
     */
    void died(Running run, String why) {
        if (run.end()) {
            writeDeath(run, why);
        }
    }

    /** T8 for a dispatch whose job died, logged, then the ack. */
    private void writeDeath(Running run, String why) {
        boolean died = write(
                "write the worker death of delivery " + run.dispatch.deliveryId(),
                () -> transitions.workerDied(dsl, run.dispatch));
        if (died && digest.error("delivery " + run.dispatch.deliveryId() + " reason worker_died")) {
            log.error(
                    "delivery {} of event {} ({}): worker died running the job ({}); marked failed worker_died",
                    run.dispatch.deliveryId(),
                    run.eventId,
                    LogText.of(run.jobType),
                    why);
        } else if (!died) {
            notCurrent("worker death", run.dispatch);
        }
        run.settlement.ack();
        meters.jobEnded(run.queue, run.jobType, WorkerMeters.Outcome.WORKER_DIED, null);
    }

    /** An outcome written on a handler thread, tried again while the database is unavailable and the worker not stopping. */
    private <T> T write(String what, Supplier<T> step) {
        return DatabaseRetry.until(log, what, "its message stays unacknowledged", stopping, step);
    }

    /**
     * Lets the serializer ready the reading of each handler's event class, before any consumer
     * starts ({@link EventSerializer#prepare}); a serializer that fails here is left to say so when a
     * message comes.
     */
    void prepareReading() {
        for (Registration<?> registration : handlers.values()) {
            try {
                serializer.prepare(registration.eventClass());
            } catch (RuntimeException e) {
                log.debug(
                        "preparing to read {} failed ({}); the first message of job type {} reads it",
                        registration.eventClass().getName(),
                        e.getClass().getName(),
                        registration.jobType());
            }
        }
    }

    /** Writes the log digest's counts when its interval has passed (the lookup threads call it as they poll). */
    /**
     * Renews the start (T2s again) of runs that wait in this worker for a handler thread: a message the
     * worker holds is not a job that ran out of time, as a held SQS message has its visibility extended.
     * Returns the delivery ids still current (dispatched with the run's dispatch id); those that are not
     * need no renewal any more. When the database does not answer, returns every id, to be tried again
     * at the next renewal, and never throws.
     */
    Set<UUID> renew(List<Running> runs) {
        try {
            return transitions.start(dsl, runs.stream().map(r -> r.dispatch).toList(), true);
        } catch (RuntimeException e) {
            log.debug(
                    "renewing the start of {} waiting messages failed ({}); tried again in a second",
                    runs.size(),
                    DatabaseOutages.describe(e));
            return runs.stream().map(r -> r.dispatch.deliveryId()).collect(Collectors.toSet());
        }
    }

    void flushLogIfDue() {
        digest.flushIfDue();
    }

    /** Writes the log digest's counts now (the worker stops). */
    void flushLog() {
        digest.flush();
    }

    /** Runs the lookup once, before any consumer starts: checks that the tables answer. */
    void warmUp() {
        queries.lookup(List.of(new UUID(0, 0)));
    }

    /** Dispatches whose handler is running now. */
    List<Running> inHandler() {
        List<Running> result = new ArrayList<>();
        for (Running r : running.values()) {
            if (r.inHandler) {
                result.add(r);
            }
        }
        return result;
    }

    private void malformed(String queue, MalformedMessageException e, Settlement settlement) {
        UUID eventId = e.eventId().orElse(null);
        UUID deliveryId = e.deliveryId().orElse(null);
        UUID dispatchId = e.dispatchId().orElse(null);
        putIds(eventId, deliveryId);
        try {
            // the exception's message is our own text naming the field, never the body
            log.warn(
                    "{} on queue {} (event {}, delivery {}, dispatch {}); rejected",
                    e.getMessage(),
                    queue,
                    eventId,
                    deliveryId,
                    dispatchId);
            if (deliveryId != null && dispatchId != null) {
                Dispatch dispatch = new Dispatch(deliveryId, dispatchId);
                try {
                    if (transitions.fail(dsl, dispatch, FailureReason.BAD_MESSAGE)) {
                        log.error(
                                "delivery {} dispatch {}: failed for good, reason bad_message", deliveryId, dispatchId);
                    }
                } catch (RuntimeException db) {
                    log.error(
                            "could not fail delivery {} ({})",
                            deliveryId,
                            db.getClass().getName());
                }
            }
        } finally {
            clearIds();
        }
        settlement.reject();
    }

    private static void notCurrent(String what, Dispatch dispatch) {
        log.warn(
                "{} of delivery {} dispatch {} found no row: that dispatch is no longer current; nothing changed",
                what,
                dispatch.deliveryId(),
                dispatch.dispatchId());
    }

    private static void putIds(@Nullable UUID eventId, @Nullable UUID deliveryId) {
        if (eventId != null) {
            MDC.put(DeliveryLog.MDC_EVENT_ID, eventId.toString());
        }
        if (deliveryId != null) {
            MDC.put(DeliveryLog.MDC_DELIVERY_ID, deliveryId.toString());
        }
    }

    private static void clearIds() {
        MDC.remove(DeliveryLog.MDC_EVENT_ID);
        MDC.remove(DeliveryLog.MDC_DELIVERY_ID);
    }
}
