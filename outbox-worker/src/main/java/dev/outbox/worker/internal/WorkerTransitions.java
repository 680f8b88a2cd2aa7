package dev.outbox.worker.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;

import dev.outbox.api.internal.DeliveryTransitions;
import dev.outbox.api.internal.RenderedStatement;
import dev.outbox.api.internal.RetryOutcome;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
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
 *   <li>T5 {@link #complete}: dispatched → completed;</li>
 *   <li>T6 {@link #retryOrFail}: dispatched → pending with the next delay, or failed {@code retries_exhausted}
 *       (the statement shared with the relay);</li>
 *   <li>T7 {@link #fail}: dispatched → failed with a safe reason ({@code job_failed}, {@code bad_message},
 *       {@code unknown_job_type}, {@code undeserializable_event});</li>
 *   <li>T8 {@link #workerDied}: dispatched → failed {@code worker_died}.</li>
 * </ul>
 */
public final class WorkerTransitions {

    public static final String JOB_FAILED = "job_failed";
    public static final String RETRIES_EXHAUSTED = "retries_exhausted";
    public static final String WORKER_DIED = "worker_died";
    public static final String BAD_MESSAGE = "bad_message";
    public static final String UNKNOWN_JOB_TYPE = "unknown_job_type";
    public static final String UNDESERIALIZABLE_EVENT = "undeserializable_event";

    private static final Pattern REASON = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    private final DeliveryTransitions shared;
    private volatile @Nullable RenderedStatement complete;

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
        if (dispatches.isEmpty()) {
            return Set.of();
        }
        UUID[] ids = new UUID[dispatches.size()];
        UUID[] dispatchIds = new UUID[dispatches.size()];
        int i = 0;
        for (Dispatch dispatch : dispatches) {
            ids[i] = dispatch.deliveryId();
            dispatchIds[i++] = dispatch.dispatchId();
        }
        return completeStatement(ctx).query(ctx, rs -> {
            Set<UUID> completed = new HashSet<>();
            while (rs.next()) {
                completed.add(rs.getObject(1, UUID.class));
            }
            return completed;
        }, shared.now(), ids, dispatchIds);
    }

    /** T5's statement, rendered once: the tables are this instance's, and so is the text. */
    private RenderedStatement completeStatement(DSLContext ctx) {
        RenderedStatement statement = complete;
        if (statement == null) {
            Param<OffsetDateTime> now = DSL.param("now", SQLDataType.TIMESTAMPWITHTIMEZONE(6));
            Param<UUID[]> ids = DSL.param("ids", SQLDataType.UUID.array());
            Param<UUID[]> dispatchIds = DSL.param("dispatch_ids", SQLDataType.UUID.array());
            DSLContext planned = mapped(ctx);
            statement = RenderedStatement.of(planned, planned
                    .update(OUTBOX_DELIVERIES)
                    .set(OUTBOX_DELIVERIES.STATUS, DSL.inline(OutboxDeliveryStatus.completed))
                    .set(OUTBOX_DELIVERIES.COMPLETED_AT, now)
                    .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, DSL.inline((OffsetDateTime) null))
                    .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                    .where(OUTBOX_DELIVERIES.STATUS.eq(DSL.inline(OutboxDeliveryStatus.dispatched)))
                    .and(OUTBOX_DELIVERIES.ID.eq(DSL.any(ids)))
                    .and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(DSL.any(dispatchIds)))
                    .returning(OUTBOX_DELIVERIES.ID), now, ids, dispatchIds);
            complete = statement;
        }
        return statement;
    }

    /** T6: back to pending with the next delay, or failed {@code retries_exhausted}; empty when the dispatch is not current. */
    public Optional<RetryOutcome> retryOrFail(DSLContext ctx, Dispatch dispatch) {
        return shared.retryOrFail(ctx, dispatch.deliveryId(), dispatch.dispatchId(), RETRIES_EXHAUSTED);
    }

    /** T7: failed at once with a safe {@code reason}; false when the dispatch is not current. */
    public boolean fail(DSLContext ctx, Dispatch dispatch, String reason) {
        if (!REASON.matcher(reason).matches()) {
            throw new IllegalArgumentException("failure reason must be a safe code [a-z][a-z0-9_]*, got '" + reason + "'");
        }
        OffsetDateTime now = shared.now();
        return mapped(ctx)
                .update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.failed)
                .set(OUTBOX_DELIVERIES.FAILED_AT, now)
                .set(OUTBOX_DELIVERIES.FAILURE_REASON, reason)
                .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, DSL.inline((OffsetDateTime) null))
                .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                .where(OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.dispatched))
                .and(OUTBOX_DELIVERIES.ID.eq(dispatch.deliveryId()))
                .and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(dispatch.dispatchId()))
                .execute() == 1;
    }

    /** T8: failed {@code worker_died} (an {@code Error} in the handler, or a shutdown that could not wait for it). */
    public boolean workerDied(DSLContext ctx, Dispatch dispatch) {
        return fail(ctx, dispatch, WORKER_DIED);
    }

    private DSLContext mapped(DSLContext ctx) {
        return dev.outbox.api.internal.OutboxDsl.planned(ctx, shared.tables());
    }
}
