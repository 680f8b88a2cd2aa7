package dev.outbox.relay.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.delivery.internal.OperatorTransitions;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The queries behind the relay's gauges, beside the queries of {@code OutboxStatus} but bounded: each reads at
 * most {@link #CAP} rows through one of the partial indexes of the migrations, whatever the table
 * sizes. Up to the cap the numbers are exact; past it they are lower bounds (see
 * docs/observability.md).
 */
public final class GaugeQueries {

    /** The most rows each gauge query reads. */
    public static final int CAP = 10_000;

    private GaugeQueries() {}

    /** One queue's pending deliveries: all, those ready now, and how long the oldest ready one has waited (null: none ready). */
    public record Queue(int pending, int ready, @Nullable Duration oldestReadyAge) {}

    /**
     * What the gauges show: per queue, the pending deliveries among the {@link #CAP} that became
     * available first ({@code pendingCapped} when there were more); unrouted events (at most the
     * cap); failed deliveries per reason among the cap most recent failures; blocked keys per
     * ordered route among the cap most recent blocked heads.
     */
    public record Snapshot(
            Map<String, Queue> queues,
            boolean pendingCapped,
            long unrouted,
            Map<String, Long> failed,
            Map<BlockedRoute, Long> blocked) {}

    /** An ordered route, as the blocked-key gauge names it: its job type (a publish route's name) and queue (exchange). */
    public record BlockedRoute(String route, String queue) {}

    public static Snapshot read(DataSource dataSource, OutboxTables tables, Instant at) {
        OffsetDateTime now = at.atOffset(ZoneOffset.UTC);
        DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES, OutboxRenderMapping.settings(tables));
        return dsl.transactionResult(configuration -> {
            DSLContext ctx = configuration.dsl();
            // the ready index (available_at) WHERE status = 'pending', oldest first, so the ready rows come first
            Table<?> pending = ctx.select(OUTBOX_DELIVERIES.QUEUE_NAME, OUTBOX_DELIVERIES.AVAILABLE_AT)
                    .from(OUTBOX_DELIVERIES)
                    .where(OUTBOX_DELIVERIES.STATUS.eq(DSL.inline(OutboxDeliveryStatus.pending)))
                    .orderBy(OUTBOX_DELIVERIES.AVAILABLE_AT)
                    .limit(DSL.inline(CAP))
                    .asTable("p");
            Field<String> queue = pending.field(OUTBOX_DELIVERIES.QUEUE_NAME);
            Field<OffsetDateTime> availableAt = pending.field(OUTBOX_DELIVERIES.AVAILABLE_AT);
            Field<Integer> ready = DSL.count().filterWhere(availableAt.le(now));
            Field<OffsetDateTime> oldest = DSL.min(availableAt).filterWhere(availableAt.le(now));
            Map<String, Queue> queues = new LinkedHashMap<>();
            int sampled = 0;
            for (var r : ctx.select(queue, DSL.count(), ready, oldest)
                    .from(pending)
                    .groupBy(queue)
                    .orderBy(queue)
                    .fetch()) {
                OffsetDateTime oldestAt = r.value4();
                queues.put(
                        r.value1(),
                        new Queue(
                                r.value2(),
                                r.value3(),
                                oldestAt == null ? null : Duration.between(oldestAt.toInstant(), at)));
                sampled += r.value2();
            }
            // the unrouted index (id) WHERE routed_at IS NULL; ordered by id so that the plan is that index, never a
            // sequential scan that may read every routed event before the few unrouted ones at the end
            int unrouted = ctx.fetchCount(ctx.select(OUTBOX_EVENTS.ID)
                    .from(OUTBOX_EVENTS)
                    .where(OUTBOX_EVENTS.ROUTED_AT.isNull())
                    .orderBy(OUTBOX_EVENTS.ID)
                    .limit(DSL.inline(CAP)));
            // the failed index (failed_at) WHERE status = 'failed', newest first
            Table<?> failures = ctx.select(OUTBOX_DELIVERIES.FAILURE_REASON)
                    .from(OUTBOX_DELIVERIES)
                    .where(OUTBOX_DELIVERIES.STATUS.eq(DSL.inline(OutboxDeliveryStatus.failed)))
                    .orderBy(OUTBOX_DELIVERIES.FAILED_AT.desc())
                    .limit(DSL.inline(CAP))
                    .asTable("f");
            Field<String> reason = failures.field(OUTBOX_DELIVERIES.FAILURE_REASON);
            Map<String, Long> failed = new LinkedHashMap<>();
            for (var r : ctx.select(reason, DSL.count())
                    .from(failures)
                    .groupBy(reason)
                    .fetch()) {
                failed.put(
                        r.value1() == null ? "unknown" : r.value1(), r.value2().longValue());
            }
            // the failed index again, for the blocked heads among the newest failures
            Table<?> heads = ctx.select(
                            OUTBOX_DELIVERIES.JOB_TYPE, OUTBOX_DELIVERIES.QUEUE_NAME, OUTBOX_DELIVERIES.ORDERING_KEY)
                    .from(OUTBOX_DELIVERIES)
                    .where(OperatorTransitions.BLOCKING_HEAD)
                    .orderBy(OUTBOX_DELIVERIES.FAILED_AT.desc())
                    .limit(DSL.inline(CAP))
                    .asTable("b");
            Field<String> route = heads.field(OUTBOX_DELIVERIES.JOB_TYPE);
            Field<String> routeQueue = heads.field(OUTBOX_DELIVERIES.QUEUE_NAME);
            Map<BlockedRoute, Long> blocked = new LinkedHashMap<>();
            for (var r : ctx.select(route, routeQueue, DSL.countDistinct(heads.field(OUTBOX_DELIVERIES.ORDERING_KEY)))
                    .from(heads)
                    .groupBy(route, routeQueue)
                    .fetch()) {
                blocked.put(new BlockedRoute(r.value1(), r.value2()), r.value3().longValue());
            }
            return new Snapshot(queues, sampled >= CAP, unrouted, failed, blocked);
        });
    }
}
