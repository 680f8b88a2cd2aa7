package dev.outbox.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.RouteTable;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The claims (T2, T2o, the test kit's) update the deliveries they chose through the primary key, never
 * through a partial index of pending deliveries ({@code ready_idx}, {@code ready_unkeyed_idx}): every
 * delivery claimed since the last vacuum leaves a dead entry there, which the statistics do not count,
 * so the planner takes reading that index for cheap. Here 100 keys had 20,000 deliveries, of which
 * 19,900 left pending since the last vacuum, and the statistics were taken after.
 */
class OrderedClaimPlanIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final OffsetDateTime NOW = OffsetDateTime.of(2030, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC);
    static final int KEYS = 100;
    static final int DELIVERIES = 20_000;

    static DSLContext ctx;
    static RelayTransitions relay;

    @BeforeAll
    static void manyClaimedSinceTheLastVacuum() {
        DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        ctx = OutboxDsl.mapped(dsl, db.tables());
        DeliveryTemplate track = new DeliveryTemplate(
                RouteKind.JOB, "track", "tracking", null, null, List.of(60), 300, DeliveryTemplate.BLOCK);
        relay = new RelayTransitions(
                db.tables(),
                new RouteTable(Map.of("shipment.changed", List.of(track))),
                Clock.fixed(NOW.toInstant(), ZoneOffset.UTC));
        String events = db.tables().schema() + "." + db.tables().events();
        String deliveries = db.tables().schema() + "." + db.tables().deliveries();
        dsl.execute("alter table " + deliveries + " set (autovacuum_enabled = false)");
        dsl.execute("insert into " + events
                + " (id, event_type, payload, created_at, routed_at, ordering_key, ordering_position)"
                + " select gen_random_uuid(), 'shipment.changed', '{}', now(), now(), 'K' || (i % " + KEYS + "), i"
                + " from generate_series(1, " + DELIVERIES + ") i");
        dsl.execute("insert into " + deliveries
                + " (id, event_id, job_type, queue_name, retry_delays_seconds, delivery_timeout_seconds,"
                + " status, attempts, available_at, created_at, updated_at, ordering_key, ordering_position, ordering_policy)"
                + " select gen_random_uuid(), id, 'track', 'tracking', '{60}', 300, 'pending', 0, now() - interval '1 minute',"
                + " now(), now(), ordering_key, ordering_position, 'block' from " + events);
        // all but the last of each key were claimed and completed since the last vacuum
        dsl.execute("update " + deliveries + " set status = 'completed', attempts = 1, dispatch_id = gen_random_uuid(),"
                + " dispatched_at = now(), completed_at = now()"
                + " where ordering_position <= " + (DELIVERIES - KEYS));
        dsl.execute("analyze " + deliveries);
    }

    private static String scans(RenderedStatement statement, Object... values) {
        return PlanScans.of(ctx, statement, values);
    }

    /** The scans of the claim's UPDATE itself (the table without an alias), not of the choice in its subquery. */
    private static String updateScans(String scans) {
        return String.join(
                "\n",
                scans.lines()
                        .filter(line -> line.contains(" on outbox_deliveries  "))
                        .toList());
    }

    @Test
    void theOrderedClaimLocksItsHeadsThroughThePrimaryKey() {
        String scans = scans(relay.claimOrderedStatement(ctx), NOW, 100, new String[0]);

        assertThat(updateScans(scans)).contains("_pkey");
        assertThat(scans).doesNotContain("ready_idx");
    }

    @Test
    void theClaimsUpdateTakesTheChosenIdsThroughThePrimaryKey() {
        String scans = scans(relay.claimStatement(ctx), NOW, 100, new String[0]);

        assertThat(updateScans(scans)).contains("_pkey").doesNotContain("ready");
    }

    @Test
    void theTestKitsClaimUpdateTakesTheChosenIdsThroughThePrimaryKey() {
        String scans = scans(relay.claimJobsStatement(ctx), NOW, 100, new String[] {"track"});

        assertThat(updateScans(scans)).contains("_pkey").doesNotContain("ready");
    }

    @Test
    void theHeadsAreStillClaimedOnePerKey() {
        List<Claimed> heads = ctx.transactionResult(tx -> relay.claim(tx.dsl(), 1_000));

        assertThat(heads).hasSize(KEYS);
        assertThat(heads.stream().map(Claimed::deliveryId).distinct()).hasSize(KEYS);
    }
}
