package dev.outbox.relay;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.delivery.internal.OperatorTransitions;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** The queries of {@link OutboxStatus}: SELECTs only, in one transaction so that the numbers agree. */
final class StatusQueries {

    private StatusQueries() {}

    static OutboxStatus read(DataSource dataSource, OutboxTables tables, Clock clock) {
        Instant at = clock.instant();
        OffsetDateTime now = at.atOffset(ZoneOffset.UTC);
        DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES, OutboxRenderMapping.settings(tables));
        return dsl.transactionResult(configuration -> {
            DSLContext ctx = configuration.dsl();
            Condition ready = OUTBOX_DELIVERIES
                    .STATUS
                    .eq(DSL.inline(OutboxDeliveryStatus.pending))
                    .and(OUTBOX_DELIVERIES.AVAILABLE_AT.le(now));
            Field<Integer> pending = count(OutboxDeliveryStatus.pending);
            Field<Integer> readyPending = DSL.count().filterWhere(ready).as("ready");
            Field<OffsetDateTime> oldest =
                    DSL.min(OUTBOX_DELIVERIES.AVAILABLE_AT).filterWhere(ready).as("oldest");
            Field<Integer> dispatched = count(OutboxDeliveryStatus.dispatched);
            Field<Integer> waiting = DSL.count()
                    .filterWhere(OUTBOX_DELIVERIES
                            .STATUS
                            .eq(DSL.inline(OutboxDeliveryStatus.dispatched))
                            .and(OUTBOX_DELIVERIES.STARTED_AT.isNull()))
                    .as("waiting");
            Field<Integer> completed = count(OutboxDeliveryStatus.completed);
            Field<Integer> failed = count(OutboxDeliveryStatus.failed);
            List<OutboxStatus.Queue> queues = new ArrayList<>();
            for (var r : ctx.select(
                            OUTBOX_DELIVERIES.QUEUE_NAME,
                            pending,
                            readyPending,
                            oldest,
                            dispatched,
                            waiting,
                            completed,
                            failed)
                    .from(OUTBOX_DELIVERIES)
                    .groupBy(OUTBOX_DELIVERIES.QUEUE_NAME)
                    .orderBy(OUTBOX_DELIVERIES.QUEUE_NAME)
                    .fetch()) {
                OffsetDateTime oldestAt = r.get(oldest);
                queues.add(new OutboxStatus.Queue(
                        r.get(OUTBOX_DELIVERIES.QUEUE_NAME),
                        r.get(pending),
                        r.get(readyPending),
                        r.get(dispatched),
                        r.get(waiting),
                        r.get(completed),
                        r.get(failed),
                        oldestAt == null ? null : Duration.between(oldestAt.toInstant(), at)));
            }
            long unrouted = ctx.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ROUTED_AT.isNull());
            Map<String, Long> failures = new LinkedHashMap<>();
            for (var r : ctx.select(OUTBOX_DELIVERIES.FAILURE_REASON, DSL.count())
                    .from(OUTBOX_DELIVERIES)
                    .where(OUTBOX_DELIVERIES.STATUS.eq(DSL.inline(OutboxDeliveryStatus.failed)))
                    .groupBy(OUTBOX_DELIVERIES.FAILURE_REASON)
                    .fetch()) {
                failures.put(
                        r.value1() == null ? "unknown" : r.value1(), r.value2().longValue());
            }
            List<OutboxStatus.BlockedRoute> blocked = new ArrayList<>();
            Field<Integer> keys =
                    DSL.countDistinct(OUTBOX_DELIVERIES.ORDERING_KEY).as("keys");
            Field<OffsetDateTime> oldestBlocked =
                    DSL.min(OUTBOX_DELIVERIES.FAILED_AT).as("oldest_blocked");
            Field<String> oldestKey = DSL.arrayGet(
                            DSL.arrayAgg(OUTBOX_DELIVERIES.ORDERING_KEY)
                                    .orderBy(OUTBOX_DELIVERIES.FAILED_AT, OUTBOX_DELIVERIES.ID),
                            1)
                    .as("oldest_key");
            for (var r : ctx.select(
                            OUTBOX_DELIVERIES.JOB_TYPE, OUTBOX_DELIVERIES.QUEUE_NAME, keys, oldestBlocked, oldestKey)
                    .from(OUTBOX_DELIVERIES)
                    .where(OperatorTransitions.BLOCKING_HEAD)
                    .groupBy(OUTBOX_DELIVERIES.JOB_TYPE, OUTBOX_DELIVERIES.QUEUE_NAME)
                    .orderBy(OUTBOX_DELIVERIES.JOB_TYPE, OUTBOX_DELIVERIES.QUEUE_NAME)
                    .fetch()) {
                blocked.add(new OutboxStatus.BlockedRoute(
                        r.value1(),
                        r.value2(),
                        r.value3(),
                        r.value5(),
                        Duration.between(r.value4().toInstant(), at)));
            }
            return new OutboxStatus(at, queues, unrouted, failures, blocked);
        });
    }

    private static Field<Integer> count(OutboxDeliveryStatus status) {
        return DSL.count()
                .filterWhere(OUTBOX_DELIVERIES.STATUS.eq(DSL.inline(status)))
                .as(status.getLiteral());
    }
}
