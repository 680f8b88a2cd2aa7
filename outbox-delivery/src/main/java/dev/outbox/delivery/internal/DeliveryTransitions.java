package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.UpdateResultStep;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jooq.types.DayToSecond;
import org.jspecify.annotations.Nullable;

/**
 * The retry-or-fail transition shared by T3 (publish refused), T4 (timed out) and T6 (retryable
 * error): one guarded UPDATE that sends a dispatched delivery back to pending with the next delay of
 * its own snapshot, or to failed with the given reason when it has none left. It clears
 * {@code dispatched_at}, {@code started_at} and {@code delivery_timeout_at} on a retry (a final
 * failure keeps {@code started_at}: it says whether the last attempt's handler ran); {@code dispatch_id} stays, so a
 * late result of the superseded dispatch still finds nothing to change.
 *
 * <p>Every statement includes {@code status = 'dispatched'} in its WHERE clause ({@link #DISPATCHED_BY_ID});
 * a row in any other state is left alone and simply not returned.
 */
public final class DeliveryTransitions {

    private static final Field<DayToSecond> ONE_SECOND = DSL.inline(new DayToSecond(0, 0, 0, 1));

    /**
     * {@code status = 'dispatched'} as the guard of the statements that take dispatched deliveries by id
     * (T3, T3u, T5, T6, T7, T8, T4's update of what its sweep chose, the worker's check that a dispatch
     * is current), written {@code cast(status as varchar) = 'dispatched'} so that the planner cannot
     * match it with the partial index of dispatched deliveries ({@code timeout_idx}) and the primary
     * key serves the ids. That index holds a dead entry for every dispatch settled until a vacuum,
     * which the statistics do not count, so reading it for a group of ids grows with the traffic.
     */
    public static final Condition DISPATCHED_BY_ID = OUTBOX_DELIVERIES
            .STATUS
            .cast(SQLDataType.VARCHAR)
            .eq(DSL.inline(OutboxDeliveryStatus.dispatched.getLiteral()));

    private final OutboxTables tables;
    private final Clock clock;
    private volatile @Nullable RenderedStatement complete;

    public DeliveryTransitions(OutboxTables tables, Clock clock) {
        this.tables = tables;
        this.clock = clock;
    }

    /** The tables these transitions write to. */
    public OutboxTables tables() {
        return tables;
    }

    /** Now, in UTC, from the injected clock. */
    public OffsetDateTime now() {
        return OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC);
    }

    /**
     * T5, completed, for a group of dispatches in one statement: dispatched → completed, guarded by
     * {@code status = 'dispatched' AND id = ANY(?) AND dispatch_id = ANY(?)} (dispatch ids are unique,
     * so a row matches only with its own dispatch). The worker's completion of a job and the relay's
     * completion of a confirmed publish route are this one statement, {@linkplain RenderedStatement
     * rendered once}. Returns the ids it completed.
     */
    public List<UUID> complete(DSLContext ctx, UUID[] deliveryIds, UUID[] dispatchIds) {
        if (deliveryIds.length == 0) {
            return List.of();
        }
        return completeStatement(ctx)
                .query(
                        ctx,
                        rs -> {
                            List<UUID> completed = new ArrayList<>();
                            while (rs.next()) {
                                completed.add(rs.getObject(1, UUID.class));
                            }
                            return completed;
                        },
                        now(),
                        deliveryIds,
                        dispatchIds);
    }

    /** T5's statement, rendered on first use; its values are now, the delivery ids, the dispatch ids. */
    RenderedStatement completeStatement(DSLContext ctx) {
        RenderedStatement statement = complete;
        if (statement == null) {
            Param<OffsetDateTime> now = DSL.param("now", SQLDataType.TIMESTAMPWITHTIMEZONE(6));
            Param<UUID[]> ids = DSL.param("ids", SQLDataType.UUID.array());
            Param<UUID[]> dispatchIds = DSL.param("dispatch_ids", SQLDataType.UUID.array());
            DSLContext planned = PlannedDsl.planned(ctx, tables);
            statement = RenderedStatement.of(
                    planned,
                    planned.update(OUTBOX_DELIVERIES)
                            .set(OUTBOX_DELIVERIES.STATUS, DSL.inline(OutboxDeliveryStatus.completed))
                            .set(OUTBOX_DELIVERIES.COMPLETED_AT, now)
                            .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, DSL.inline((OffsetDateTime) null))
                            .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                            .where(DISPATCHED_BY_ID)
                            .and(OUTBOX_DELIVERIES.ID.eq(DSL.any(ids)))
                            .and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(DSL.any(dispatchIds)))
                            .returning(OUTBOX_DELIVERIES.ID),
                    now,
                    ids,
                    dispatchIds);
            complete = statement;
        }
        return statement;
    }

    /** Retry-or-fail of one dispatch, guarded by delivery id, status dispatched and dispatch id. */
    public Optional<RetryOutcome> retryOrFail(
            DSLContext ctx, UUID deliveryId, UUID dispatchId, FailureReason exhaustedReason) {
        List<RetryOutcome> changed = retryOrFail(
                ctx,
                OUTBOX_DELIVERIES.ID.eq(deliveryId).and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(dispatchId)),
                exhaustedReason);
        return changed.stream().findFirst();
    }

    /**
     * Retry-or-fail of every dispatched delivery matching {@code guard} (combined with
     * {@code status = 'dispatched'}); returns what changed. Dispatch ids are unique, so a batch can
     * be guarded by {@code id = ANY(?) AND dispatch_id = ANY(?)}.
     */
    public List<RetryOutcome> retryOrFail(DSLContext ctx, Condition guard, FailureReason exhaustedReason) {
        return retryOrFailQuery(PlannedDsl.planned(ctx, tables), DSL.val(now()), DSL.val(exhaustedReason.code()), guard)
                .fetch()
                .map(DeliveryTransitions::outcome);
    }

    /**
     * Retry-or-fail of every dispatched delivery matching {@code guard}, {@linkplain RenderedStatement
     * rendered once} for the hot paths of the relay: its values are now, the reason a delivery fails
     * with when no retry is left (the code of a {@link FailureReason}),
     * then the values of {@code guardParams}; read what it changed with {@link #outcomes}.
     */
    public RenderedStatement retryOrFailStatement(DSLContext ctx, Condition guard, Param<?>... guardParams) {
        return retryOrFailStatement(ctx, guard, reason -> reason, guardParams);
    }

    /**
     * Like {@link #retryOrFailStatement(DSLContext, Condition, Param...)}, with the reason written on
     * a final failure computed from the given reason's value ({@code reasonOf}), for example a
     * {@code CASE} on a column of the row.
     */
    public RenderedStatement retryOrFailStatement(
            DSLContext ctx,
            Condition guard,
            java.util.function.UnaryOperator<Field<String>> reasonOf,
            Param<?>... guardParams) {
        DSLContext planned = PlannedDsl.planned(ctx, tables);
        Param<OffsetDateTime> now = DSL.param("retry_now", SQLDataType.TIMESTAMPWITHTIMEZONE(6));
        Param<String> reason = DSL.param("retry_reason", SQLDataType.VARCHAR);
        Param<?>[] params = new Param<?>[guardParams.length + 2];
        params[0] = now;
        params[1] = reason;
        System.arraycopy(guardParams, 0, params, 2, guardParams.length);
        return RenderedStatement.of(planned, retryOrFailQuery(planned, now, reasonOf.apply(reason), guard), params);
    }

    /** Runs a {@link #retryOrFailStatement} with now, {@code exhaustedReason} and the guard's values; returns what changed. */
    public List<RetryOutcome> retryOrFail(
            DSLContext ctx, RenderedStatement statement, FailureReason exhaustedReason, Object... guardValues) {
        Object[] values = new Object[guardValues.length + 2];
        values[0] = now();
        values[1] = exhaustedReason.code();
        System.arraycopy(guardValues, 0, values, 2, guardValues.length);
        return statement.query(ctx, DeliveryTransitions::outcomes, values);
    }

    private static UpdateResultStep<OutboxDeliveriesRecord> retryOrFailQuery(
            DSLContext planned, Field<OffsetDateTime> nowField, Field<String> exhaustedReason, Condition guard) {
        Condition willRetry = OUTBOX_DELIVERIES.ATTEMPTS.le(DSL.cardinality(OUTBOX_DELIVERIES.RETRY_DELAYS_SECONDS));
        Field<Integer> delay = DSL.arrayGet(OUTBOX_DELIVERIES.RETRY_DELAYS_SECONDS, OUTBOX_DELIVERIES.ATTEMPTS);
        return planned.update(OUTBOX_DELIVERIES)
                .set(
                        OUTBOX_DELIVERIES.STATUS,
                        DSL.when(willRetry, DSL.inline(OutboxDeliveryStatus.pending))
                                .otherwise(DSL.inline(OutboxDeliveryStatus.failed)))
                .set(
                        OUTBOX_DELIVERIES.AVAILABLE_AT,
                        DSL.when(willRetry, nowField.plus(ONE_SECOND.times(delay)))
                                .otherwise(OUTBOX_DELIVERIES.AVAILABLE_AT))
                .set(
                        OUTBOX_DELIVERIES.DISPATCHED_AT,
                        DSL.when(willRetry, DSL.inline((OffsetDateTime) null))
                                .otherwise(OUTBOX_DELIVERIES.DISPATCHED_AT))
                // a retry starts afresh: the next dispatch is picked up (or not) on its own
                .set(
                        OUTBOX_DELIVERIES.STARTED_AT,
                        DSL.when(willRetry, DSL.inline((OffsetDateTime) null)).otherwise(OUTBOX_DELIVERIES.STARTED_AT))
                .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, DSL.inline((OffsetDateTime) null))
                .set(
                        OUTBOX_DELIVERIES.FAILED_AT,
                        DSL.when(willRetry, DSL.inline((OffsetDateTime) null)).otherwise(nowField))
                .set(
                        OUTBOX_DELIVERIES.FAILURE_REASON,
                        DSL.when(willRetry, DSL.inline((String) null)).otherwise(exhaustedReason))
                .set(OUTBOX_DELIVERIES.UPDATED_AT, nowField)
                .where(DISPATCHED_BY_ID)
                .and(guard)
                .returning(
                        OUTBOX_DELIVERIES.ID,
                        OUTBOX_DELIVERIES.EVENT_ID,
                        OUTBOX_DELIVERIES.DISPATCH_ID,
                        OUTBOX_DELIVERIES.JOB_TYPE,
                        OUTBOX_DELIVERIES.QUEUE_NAME,
                        OUTBOX_DELIVERIES.STATUS,
                        OUTBOX_DELIVERIES.ATTEMPTS,
                        OUTBOX_DELIVERIES.AVAILABLE_AT,
                        OUTBOX_DELIVERIES.FAILURE_REASON);
    }

    /** The outcomes a retry-or-fail statement returned, in the column order of its RETURNING. */
    private static List<RetryOutcome> outcomes(ResultSet rs) throws SQLException {
        List<RetryOutcome> outcomes = new ArrayList<>();
        while (rs.next()) {
            outcomes.add(new RetryOutcome(
                    rs.getObject(1, UUID.class),
                    rs.getObject(2, UUID.class),
                    rs.getObject(3, UUID.class),
                    rs.getString(4),
                    rs.getString(5),
                    OutboxDeliveryStatus.valueOf(rs.getString(6)),
                    rs.getInt(7),
                    rs.getObject(8, OffsetDateTime.class).withOffsetSameInstant(ZoneOffset.UTC),
                    reason(rs.getString(9))));
        }
        return outcomes;
    }

    private static RetryOutcome outcome(OutboxDeliveriesRecord r) {
        return new RetryOutcome(
                r.getId(),
                r.getEventId(),
                r.getDispatchId(),
                r.getJobType(),
                r.getQueueName(),
                r.getStatus(),
                r.getAttempts(),
                r.getAvailableAt(),
                reason(r.getFailureReason()));
    }

    private static @Nullable FailureReason reason(@Nullable String code) {
        if (code == null) {
            return null;
        }
        return FailureReason.ofCode(code)
                .orElseThrow(() -> new IllegalStateException("a failure reason this version does not write: " + code));
    }
}
