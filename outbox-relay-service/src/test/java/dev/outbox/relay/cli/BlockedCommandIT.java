package dev.outbox.relay.cli;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.api.EventType;
import dev.outbox.api.NewEvent;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.RouteTable;
import dev.outbox.delivery.internal.Claimed;
import dev.outbox.delivery.internal.DeliveryTransitions;
import dev.outbox.delivery.internal.FailureReason;
import dev.outbox.delivery.internal.RelayTransitions;
import dev.outbox.delivery.internal.WorkerTransitions;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.TestPostgres;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code blocked list / requeue / skip} on keys of an ordered route whose head failed for good. */
class BlockedCommandIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final ObjectMapper JSON = new ObjectMapper();
    static Map<String, String> env;

    @EventType("shipment.changed")
    record ShipmentChanged(String shipment, int step) {}

    DSLContext dsl;
    RelayTransitions relay;
    UUID headA;
    UUID headB;
    UUID secondA;

    record Run(int exitCode, String out, String err) {
        JsonNode json() throws Exception {
            return JSON.readTree(out);
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = RelayCommand.run(args, env, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    @BeforeAll
    static void settings() {
        TestPostgres pg = TestPostgres.get();
        env = new HashMap<>();
        env.put("OUTBOX_JDBC_URL", pg.jdbcUrl());
        env.put("OUTBOX_JDBC_USER", pg.user());
        env.put("OUTBOX_JDBC_PASSWORD", pg.password());
        env.put("OUTBOX_SCHEMA", db.schema());
    }

    /** Keys A and B each have a failed head on the ordered route "track"; A has a second event waiting. */
    @BeforeEach
    void blockedKeys() throws Exception {
        db.truncate();
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        Outbox outbox =
                Outbox.builder().tables(db.tables()).notifications(false).build();
        List<UUID> a = dsl.transactionResult(tx -> outbox.recordAll(
                tx.dsl(),
                List.of(
                        NewEvent.of(new ShipmentChanged("A", 1)).withOrderingKey("A"),
                        NewEvent.of(new ShipmentChanged("A", 2)).withOrderingKey("A"),
                        NewEvent.of(new ShipmentChanged("B", 1)).withOrderingKey("B"))));
        relay = new RelayTransitions(
                db.tables(),
                new RouteTable(Map.of(
                        "shipment.changed",
                        List.of(new DeliveryTemplate(
                                RouteKind.JOB,
                                "track",
                                "tracking",
                                null,
                                null,
                                List.of(),
                                300,
                                DeliveryTemplate.BLOCK)))),
                Clock.systemUTC());
        WorkerTransitions worker = new WorkerTransitions(new DeliveryTransitions(db.tables(), Clock.systemUTC()));
        dsl.transaction(tx -> relay.route(tx.dsl(), 100, null));
        List<Claimed> heads = claim();
        assertThat(heads).hasSize(2);
        for (Claimed c : heads) {
            dsl.transaction(tx -> worker.fail(
                    tx.dsl(),
                    new WorkerTransitions.Dispatch(c.deliveryId(), c.dispatchId()),
                    FailureReason.JOB_FAILED));
            if (c.eventId().equals(a.get(0))) {
                headA = c.deliveryId();
            } else {
                headB = c.deliveryId();
            }
        }
        secondA = OutboxDsl.mapped(dsl, db.tables())
                .select(OUTBOX_DELIVERIES.ID)
                .from(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.EVENT_ID.eq(a.get(1)))
                .fetchSingle(OUTBOX_DELIVERIES.ID);
        assertThat(claim()).isEmpty();
    }

    private List<Claimed> claim() {
        return dsl.transactionResult(tx -> relay.claim(tx.dsl(), 100));
    }

    @Test
    void statusCountsTheBlockedKeysPerRouteWithTheOldest() throws Exception {
        Run table = run("status");
        assertThat(table.exitCode()).as(table.err()).isZero();
        assertThat(table.out()).contains("blocked keys: 2").containsPattern("track +tracking +2 +\\d+s [AB]");

        JsonNode json = run("status", "--json").json();
        assertThat(json.get("blockedKeys").asLong()).isEqualTo(2);
        JsonNode route = json.get("blockedKeysByRoute").get(0);
        assertThat(route.get("route").asText()).isEqualTo("track");
        assertThat(route.get("queue").asText()).isEqualTo("tracking");
        assertThat(route.get("keys").asLong()).isEqualTo(2);
        assertThat(route.get("oldestKey").asText()).isIn("A", "B");
        assertThat(route.get("oldestAgeSeconds").asDouble()).isGreaterThanOrEqualTo(0);

        assertThat(run("blocked", "skip", "--all").exitCode()).isZero();
        JsonNode after = run("status", "--json").json();
        assertThat(after.get("blockedKeys").asLong()).isZero();
        assertThat(after.get("blockedKeysByRoute")).isEmpty();
    }

    @Test
    void listsTheBlockedKeysWithTheirHeadAsATableAndAsJson() throws Exception {
        Run table = run("blocked", "list");
        assertThat(table.exitCode()).as(table.err()).isZero();
        assertThat(table.out())
                .contains("JOB TYPE", "track", "tracking", headA.toString(), headB.toString(), "job_failed")
                .contains("2 blocked key(s)");

        Run json = run("blocked", "list", "--json");
        List<JsonNode> lines = json.out()
                .lines()
                .map(l -> {
                    try {
                        return JSON.readTree(l);
                    } catch (Exception e) {
                        throw new AssertionError(l, e);
                    }
                })
                .toList();
        assertThat(lines).extracting(n -> n.get("orderingKey").asText()).containsExactlyInAnyOrder("A", "B");
        assertThat(lines).allSatisfy(n -> {
            assertThat(n.get("jobType").asText()).isEqualTo("track");
            assertThat(n.get("failureReason").asText()).isEqualTo("job_failed");
            assertThat(n.get("ageSeconds").asLong()).isBetween(0L, 60L);
        });
    }

    @Test
    void skipLetsTheKeyGoOnWithItsNextEventAfterADryRunThatChangesNothing() throws Exception {
        Run dry = run("blocked", "skip", "--id", headA.toString(), "--dry-run", "--json");
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.json().get("heads").asInt()).isEqualTo(1);
        assertThat(dry.json().get("dryRun").asBoolean()).isTrue();
        assertThat(claim()).isEmpty();

        Run skip = run("blocked", "skip", "--id", headA.toString());
        assertThat(skip.out()).contains("skipped 1 blocked head(s)");
        assertThat(claim()).extracting(Claimed::deliveryId).containsExactly(secondA);
        assertThat(status(headA)).isEqualTo(OutboxDeliveryStatus.failed);

        Run again = run("blocked", "skip", "--id", headA.toString(), "--json");
        assertThat(again.json().get("heads").asInt()).isZero();
        assertThat(again.json().get("skipped").get(0).get("state").asText()).isEqualTo("failed");
    }

    @Test
    void requeueRunsEveryBlockedHeadAgainInItsPlace() throws Exception {
        Run requeue = run("blocked", "requeue", "--all");
        assertThat(requeue.exitCode()).as(requeue.err()).isZero();
        assertThat(requeue.out()).contains("requeued 2 blocked head(s)");
        assertThat(claim())
                .extracting(Claimed::deliveryId)
                .containsExactlyInAnyOrder(headA, headB); // not secondA: the head goes first
        assertThat(run("blocked", "list").out()).contains("0 blocked key(s)");
    }

    @Test
    void refusesNeitherOrBothOfIdAndAll() {
        Run neither = run("blocked", "requeue");
        assertThat(neither.exitCode()).isEqualTo(2);
        assertThat(neither.err()).contains("give --id DELIVERY_ID (repeatable) or --all, not both");
        Run both = run("blocked", "skip", "--all", "--id", headA.toString());
        assertThat(both.exitCode()).isEqualTo(2);
        Run badLimit = run("blocked", "list", "--limit", "0");
        assertThat(badLimit.err()).contains("--limit must be a whole number from 1 to 10000, got 0");
        assertThat(claim()).isEmpty();
    }

    private OutboxDeliveryStatus status(UUID id) {
        return OutboxDsl.mapped(dsl, db.tables())
                .select(OUTBOX_DELIVERIES.STATUS)
                .from(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(id))
                .fetchSingle(OUTBOX_DELIVERIES.STATUS);
    }
}
