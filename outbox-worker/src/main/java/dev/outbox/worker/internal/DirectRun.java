package dev.outbox.worker.internal;

import dev.outbox.api.EventSerializer;
import dev.outbox.delivery.internal.DeliveryLog;
import dev.outbox.delivery.internal.DeliveryTransitions;
import dev.outbox.delivery.internal.FailureReason;
import dev.outbox.delivery.internal.RetryOutcome;
import dev.outbox.delivery.internal.WorkerTransitions;
import dev.outbox.delivery.internal.WorkerTransitions.Dispatch;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.worker.JobRun;
import dev.outbox.worker.JobRun.Outcome;
import dev.outbox.worker.WorkerLoggers;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link dev.outbox.worker.JobRunner}'s work: one dispatched delivery, in the calling thread, without a
 * broker. The same lookup, context and transitions as {@link MessageProcessor}, and the same decision
 * ({@link HandlerResult}); each outcome is written at once (no grouped completion, no acknowledgement).
 */
public final class DirectRun {

    private static final Logger log = LoggerFactory.getLogger(WorkerLoggers.JOBS);

    private final DSLContext dsl;
    private final DeliveryQueries queries;
    private final WorkerTransitions transitions;
    private final EventSerializer serializer;
    private final Map<String, Registration<?>> handlers;

    public DirectRun(
            DSLContext dsl,
            OutboxTables tables,
            EventSerializer serializer,
            Clock clock,
            Map<String, Registration<?>> handlers) {
        this.dsl = dsl;
        this.queries = new DeliveryQueries(dsl, tables);
        this.transitions = new WorkerTransitions(new DeliveryTransitions(tables, clock));
        this.serializer = serializer;
        this.handlers = Map.copyOf(handlers);
    }

    public Set<String> jobTypes() {
        return handlers.keySet();
    }

    /** Looks the delivery up, runs its handler when the dispatch is current, writes the outcome, says what it did. */
    public JobRun run(UUID deliveryId, UUID dispatchId) {
        Dispatch dispatch = new Dispatch(deliveryId, dispatchId);
        transitions.start(dsl, List.of(dispatch), false);
        DeliveryRow row = queries.lookup(List.of(deliveryId)).get(deliveryId);
        if (row == null || !row.isCurrent(dispatchId)) {
            return new JobRun(
                    row == null ? new UUID(0, 0) : row.eventId(),
                    deliveryId,
                    dispatchId,
                    row == null ? "" : row.jobType(),
                    row == null ? "" : row.eventType(),
                    row == null ? "" : row.queue(),
                    row == null ? 0 : row.attempts(),
                    false,
                    null,
                    null,
                    Outcome.NOT_CURRENT,
                    null);
        }
        if (!row.job()) {
            return new JobRun(
                    row.eventId(),
                    deliveryId,
                    dispatchId,
                    row.jobType(),
                    row.eventType(),
                    row.queue(),
                    row.attempts(),
                    false,
                    null,
                    null,
                    Outcome.NOT_CURRENT,
                    null); // a publish route's delivery: the relay settles it, no job runs
        }
        Registration<?> registration = handlers.get(row.jobType());
        if (registration == null) {
            return failed(row, dispatch, null, null, FailureReason.UNKNOWN_JOB_TYPE);
        }
        Object event;
        try {
            event = Objects.requireNonNull(serializer.deserialize(row.payload(), registration.eventClass()), "event");
        } catch (RuntimeException e) {
            return failed(row, dispatch, null, e, FailureReason.UNDESERIALIZABLE_EVENT);
        }
        Throwable failure = null;
        try {
            registration.invoke(event, new JobContextImpl(row, dispatchId, queries));
        } catch (Throwable t) {
            failure = t;
        }
        switch (HandlerResult.of(failure)) {
            case COMPLETE -> {
                boolean completed = transitions.complete(dsl, List.of(dispatch)).contains(deliveryId);
                return result(row, dispatch, event, null, completed ? Outcome.COMPLETED : Outcome.NOT_CURRENT, null);
            }
            case RETRY -> {
                Optional<RetryOutcome> outcome = transitions.retryOrFail(dsl, dispatch);
                if (outcome.isEmpty()) {
                    return result(row, dispatch, event, failure, Outcome.NOT_CURRENT, null);
                }
                DeliveryLog.retryOutcome(log, outcome.get(), "retryable_error");
                FailureReason reason = outcome.get().failureReason();
                return result(
                        row,
                        dispatch,
                        event,
                        failure,
                        outcome.get().retried() ? Outcome.RETRY_SCHEDULED : Outcome.FAILED,
                        reason == null ? null : reason.code());
            }
            case DIE -> {
                return failed(row, dispatch, event, failure, FailureReason.WORKER_DIED);
            }
            default -> {
                return failed(row, dispatch, event, failure, FailureReason.JOB_FAILED);
            }
        }
    }

    private JobRun failed(
            DeliveryRow row,
            Dispatch dispatch,
            @Nullable Object event,
            @Nullable Throwable thrown,
            FailureReason reason) {
        if (!transitions.fail(dsl, dispatch, reason)) {
            return result(row, dispatch, event, thrown, Outcome.NOT_CURRENT, null);
        }
        log.error(
                "delivery {} of event {} ({}): failed for good on attempt {}, reason {}{}",
                row.deliveryId(),
                row.eventId(),
                row.jobType(),
                row.attempts(),
                reason,
                thrown == null ? "" : " (" + thrown.getClass().getName() + ")");
        return result(row, dispatch, event, thrown, Outcome.FAILED, reason.code());
    }

    private static JobRun result(
            DeliveryRow row,
            Dispatch dispatch,
            @Nullable Object event,
            @Nullable Throwable thrown,
            Outcome outcome,
            @Nullable String reason) {
        return new JobRun(
                row.eventId(),
                row.deliveryId(),
                dispatch.dispatchId(),
                row.jobType(),
                row.eventType(),
                row.queue(),
                row.attempts(),
                row.lastAttempt(),
                event,
                thrown,
                outcome,
                reason);
    }
}
