package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;

import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.enums.OutboxRouteKind;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Param;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The worker's edges of the delivery state machine, one method and one statement each, every one
 * guarded by {@code status = 'dispatched'} and the dispatch id, each returning what it changed (a
 * dispatch that is no longer current changes nothing; that is an answer, not an error):
 * <ul>
 *   <li>T2s {@link #start}: a worker picked the dispatch up: {@code started_at} set, the status stays dispatched;</li>
 *   <li>T5 {@link #complete}: dispatched → completed;</li>
 *   <li>T6 {@link #retryOrFail}: dispatched → pending with the next delay, or failed {@code retries_exhausted}
 *       (the statement shared with the relay);</li>
 *   <li>T7 {@link #fail}: dispatched → failed with a safe reason ({@code job_failed}, {@code bad_message},
 *       {@code unknown_job_type}, {@code undeserializable_event});</li>
 *   <li>T8 {@link #workerDied}: dispatched → failed {@code worker_died}.</li>
 * </ul>
 */
public final class WorkerTransitions {

    private final DeliveryTransitions shared;
    private volatile @Nullable RenderedStatement startFirst;
    private volatile @Nullable RenderedStatement startAgain;

    public WorkerTransitions(DeliveryTransitions shared) {
        this.shared = shared;
    }

    /** One dispatch of one delivery: the pair every worker transition is guarded by. */
    public record Dispatch(UUID deliveryId, UUID dispatchId) {}

    /**
     * T5 for a group of dispatches in one statement
     * ({@code status = 'dispatched' AND id = ANY(?) AND dispatch_id = ANY(?)}; dispatch ids are unique,
     * so a row matches only with its own dispatch). Returns the ids of the deliveries it completed.
     */
    public Set<UUID> complete(DSLContext ctx, Collection<Dispatch> dispatches) {
        UUID[] ids = dispatches.stream().map(Dispatch::deliveryId).toArray(UUID[]::new);
        UUID[] dispatchIds = dispatches.stream().map(Dispatch::dispatchId).toArray(UUID[]::new);
        return new HashSet<>(shared.complete(ctx, ids, dispatchIds));
    }

    /**
     * T2s, started: the worker has taken the messages of these dispatches and is about to run their
     * jobs. One statement sets {@code started_at} (now, and never before {@code dispatched_at}) of
     * those still dispatched with their dispatch id on a job route; from then on T4 counts the
     * delivery's timeout from the start, and a timeout is a failed attempt of the job, not a message
     * that no worker took. {@code again}: also those started already (a message that waited in this
     * worker before its handler thread was free starts its clock again); otherwise those are left as
     * they are (a message redelivered after a worker died keeps the first start, so that a job that
     * keeps killing its workers still times out). Returns the ids it changed. Writes no indexed
     * column, so PostgreSQL can update the row in place (HOT).
     */
    public Set<UUID> start(DSLContext ctx, Collection<Dispatch> dispatches, boolean again) {
        if (dispatches.isEmpty()) {
            return Set.of();
        }
        UUID[] ids = dispatches.stream().map(Dispatch::deliveryId).toArray(UUID[]::new);
        UUID[] dispatchIds = dispatches.stream().map(Dispatch::dispatchId).toArray(UUID[]::new);
        return startStatement(ctx, again)
                .query(
                        ctx,
                        rs -> {
                            Set<UUID> started = new HashSet<>();
                            while (rs.next()) {
                                started.add(rs.getObject(1, UUID.class));
                            }
                            return started;
                        },
                        shared.now(),
                        ids,
                        dispatchIds);
    }

    /**
     * T2s's statement ({@code again}: also those started already), rendered on first use: the worker runs
     * it for every group it takes, and rendering it with jOOQ each time was 40 % of the worker's samples
     * in S1. Its values are now, the delivery ids, the dispatch ids.
     */
    RenderedStatement startStatement(DSLContext ctx, boolean again) {
        RenderedStatement statement = again ? startAgain : startFirst;
        if (statement == null) {
            Param<OffsetDateTime> now = DSL.param("now", SQLDataType.TIMESTAMPWITHTIMEZONE(6));
            Param<UUID[]> ids = DSL.param("ids", SQLDataType.UUID.array());
            Param<UUID[]> dispatchIds = DSL.param("dispatch_ids", SQLDataType.UUID.array());
            DSLContext planned = mapped(ctx);
            statement = RenderedStatement.of(
                    planned,
                    planned.update(OUTBOX_DELIVERIES)
                            .set(OUTBOX_DELIVERIES.STARTED_AT, DSL.greatest(now, OUTBOX_DELIVERIES.DISPATCHED_AT))
                            .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                            .where(DeliveryTransitions.DISPATCHED_BY_ID)
                            .and(OUTBOX_DELIVERIES.ID.eq(DSL.any(ids)))
                            .and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(DSL.any(dispatchIds)))
                            .and(OUTBOX_DELIVERIES.KIND.eq(DSL.inline(OutboxRouteKind.job)))
                            .and(again ? DSL.noCondition() : OUTBOX_DELIVERIES.STARTED_AT.isNull())
                            .returning(OUTBOX_DELIVERIES.ID),
                    now,
                    ids,
                    dispatchIds);
            if (again) {
                startAgain = statement;
            } else {
                startFirst = statement;
            }
        }
        return statement;
    }

    /** T6: back to pending with the next delay, or failed {@code retries_exhausted}; empty when the dispatch is not current. */
    public Optional<RetryOutcome> retryOrFail(DSLContext ctx, Dispatch dispatch) {
        return shared.retryOrFail(ctx, dispatch.deliveryId(), dispatch.dispatchId(), FailureReason.RETRIES_EXHAUSTED);
    }

    /** T7: failed at once with a safe {@code reason}; false when the dispatch is not current. */
    public boolean fail(DSLContext ctx, Dispatch dispatch, FailureReason reason) {
        OffsetDateTime now = shared.now();
        return mapped(ctx)
                        .update(OUTBOX_DELIVERIES)
                        .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.failed)
                        .set(OUTBOX_DELIVERIES.FAILED_AT, now)
                        .set(OUTBOX_DELIVERIES.FAILURE_REASON, reason.code())
                        .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, DSL.inline((OffsetDateTime) null))
                        .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                        .where(DeliveryTransitions.DISPATCHED_BY_ID)
                        .and(OUTBOX_DELIVERIES.ID.eq(dispatch.deliveryId()))
                        .and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(dispatch.dispatchId()))
                        .execute()
                == 1;
    }

    /** T8: failed {@code worker_died} (an {@code Error} in the handler, or a shutdown that could not wait for it). */
    public boolean workerDied(DSLContext ctx, Dispatch dispatch) {
        return fail(ctx, dispatch, FailureReason.WORKER_DIED);
    }

    private DSLContext mapped(DSLContext ctx) {
        return PlannedDsl.planned(ctx, shared.tables());
    }
}
