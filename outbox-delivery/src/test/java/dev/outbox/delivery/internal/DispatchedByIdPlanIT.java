package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.OutboxDsl;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Param;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The statements that take dispatched deliveries by id (T5's completion of a group, retry-or-fail of
 * a group) look the ids up in the primary key, never read the partial index of dispatched deliveries
 * ({@code timeout_idx}): every dispatch settled leaves a dead entry in that index until a vacuum,
 * while the statistics count only the live dispatched rows, so the planner takes reading the whole
 * index for cheap. Here 20,000 deliveries were dispatched and 19,900 of them completed since the
 * last vacuum, and the statistics were taken after.
 */
class DispatchedByIdPlanIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final OffsetDateTime NOW = OffsetDateTime.of(2030, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC);
    static final int DISPATCHED = 20_000;
    static final int LEFT = 100;

    static DSLContext ctx;
    static DeliveryTransitions transitions;
    /** The deliveries still dispatched, and their dispatch ids. */
    static UUID[] ids;

    static UUID[] dispatchIds;

    @BeforeAll
    static void manySettledDispatchesSinceTheLastVacuum() {
        DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        ctx = OutboxDsl.mapped(dsl, db.tables());
        transitions = new DeliveryTransitions(db.tables(), Clock.fixed(NOW.toInstant(), ZoneOffset.UTC));
        String events = db.tables().schema() + "." + db.tables().events();
        String deliveries = db.tables().schema() + "." + db.tables().deliveries();
        dsl.execute("alter table " + deliveries + " set (autovacuum_enabled = false)");
        dsl.execute("insert into " + events + " (id, event_type, payload, created_at, routed_at)"
                + " select gen_random_uuid(), 'order.placed', '{}', now(), now() from generate_series(1, " + DISPATCHED
                + ")");
        dsl.execute("insert into " + deliveries
                + " (id, event_id, job_type, queue_name, retry_delays_seconds, delivery_timeout_seconds,"
                + " status, attempts, dispatch_id, available_at, dispatched_at, delivery_timeout_at, created_at, updated_at)"
                + " select gen_random_uuid(), id, 'send-confirmation', 'emails', '{60}', 30, 'dispatched', 1, gen_random_uuid(),"
                + " now(), now(), now() + interval '30 s', now(), now() from " + events);
        List<Record2<UUID, UUID>> all = ctx.select(OUTBOX_DELIVERIES.ID, OUTBOX_DELIVERIES.DISPATCH_ID)
                .from(OUTBOX_DELIVERIES)
                .orderBy(OUTBOX_DELIVERIES.ID)
                .fetch();
        // completed in groups, as a worker does, each group its own transaction
        for (int from = 0; from < DISPATCHED - LEFT; from += LEFT) {
            List<Record2<UUID, UUID>> group = all.subList(from, from + LEFT);
            assertThat(transitions.complete(
                            ctx,
                            group.stream().map(Record2::value1).toArray(UUID[]::new),
                            group.stream().map(Record2::value2).toArray(UUID[]::new)))
                    .hasSize(LEFT);
        }
        dsl.execute("analyze " + deliveries);
        List<Record2<UUID, UUID>> left = all.subList(DISPATCHED - LEFT, DISPATCHED);
        ids = left.stream().map(Record2::value1).toArray(UUID[]::new);
        dispatchIds = left.stream().map(Record2::value2).toArray(UUID[]::new);
    }

    private static String scans(RenderedStatement statement, Object... values) {
        return PlanScans.of(ctx, statement, values);
    }

    @Test
    void theCompletionOfAGroupLooksItsIdsUpInThePrimaryKey() {
        String scans = scans(transitions.completeStatement(ctx), NOW, ids, dispatchIds);

        assertThat(scans).contains("_pkey").doesNotContain("timeout_idx");
    }

    @Test
    void theRetryOrFailOfAGroupLooksItsIdsUpInThePrimaryKey() {
        Param<UUID[]> idsParam = DSL.param("ids", SQLDataType.UUID.array());
        Param<UUID[]> dispatchIdsParam = DSL.param("dispatch_ids", SQLDataType.UUID.array());
        RenderedStatement retryOrFail = transitions.retryOrFailStatement(
                ctx,
                OUTBOX_DELIVERIES
                        .ID
                        .eq(DSL.any(idsParam))
                        .and(OUTBOX_DELIVERIES.DISPATCH_ID.eq(DSL.any(dispatchIdsParam))),
                idsParam,
                dispatchIdsParam);

        String scans = scans(retryOrFail, NOW, FailureReason.PUBLISH_FAILED.code(), ids, dispatchIds);

        assertThat(scans).contains("_pkey").doesNotContain("timeout_idx");
    }

    @Test
    void theGroupIsStillCompletedWhole() {
        UUID[] some = Arrays.copyOf(ids, 10);
        UUID[] theirDispatches = Arrays.copyOf(dispatchIds, 10);

        assertThat(transitions.complete(ctx, some, theirDispatches)).containsExactlyInAnyOrder(some);
        assertThat(transitions.complete(ctx, some, theirDispatches))
                .as("a second completion finds them settled")
                .isEmpty();
    }
}
