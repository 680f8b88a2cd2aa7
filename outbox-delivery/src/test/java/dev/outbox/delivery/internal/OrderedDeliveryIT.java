package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.api.NewEvent;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.RouteTable;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Ordered routes (docs/ordering.md): positions per key, T1o, T2o, retries, blocked keys, requeue and skip. */
class OrderedDeliveryIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @EventType("shipment.changed")
    record ShipmentChanged(String shipment, int step) {}

    static final DeliveryTemplate BLOCKING = new DeliveryTemplate(
            RouteKind.JOB, "track", "tracking", null, null, List.of(60), 300, DeliveryTemplate.BLOCK);
    static final DeliveryTemplate SKIPPING = new DeliveryTemplate(
            RouteKind.JOB, "notify", "notifications", null, null, List.of(), 300, DeliveryTemplate.SKIP);
    static final DeliveryTemplate UNORDERED =
            new DeliveryTemplate(RouteKind.JOB, "audit", "audit", null, null, List.of(), 300);

    private final MutableClock clock = MutableClock.startingNow();
    private DSLContext dsl;
    private Outbox outbox;
    private DeliveryTransitions shared;
    private WorkerTransitions worker;
    private OperatorTransitions operator;

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        outbox = Outbox.builder().tables(db.tables()).notifications(false).build();
        shared = new DeliveryTransitions(db.tables(), clock);
        worker = new WorkerTransitions(shared);
        operator = new OperatorTransitions(db.tables(), clock);
    }

    private <T> T inTx(java.util.function.Function<DSLContext, T> work) {
        return dsl.transactionResult(c -> work.apply(c.dsl()));
    }

    private RelayTransitions relay(DeliveryTemplate... routes) {
        return new RelayTransitions(db.tables(), new RouteTable(Map.of("shipment.changed", List.of(routes))), clock);
    }

    private UUID record(String key, int step) {
        return dsl.transactionResult(tx -> outbox.record(
                tx.dsl(), NewEvent.of(new ShipmentChanged(key, step)).withOrderingKey(key)));
    }

    private UUID recordUnkeyed(int step) {
        return dsl.transactionResult(tx -> outbox.record(tx.dsl(), new ShipmentChanged("none", step)));
    }

    private RelayTransitions.Routed route(RelayTransitions relay) {
        return dsl.transactionResult(tx -> relay.route(tx.dsl(), 100, null));
    }

    private List<Claimed> claim(RelayTransitions relay) {
        return dsl.transactionResult(tx -> relay.claim(tx.dsl(), 100));
    }

    private static List<UUID> events(List<Claimed> claimed) {
        return claimed.stream().map(Claimed::eventId).toList();
    }

    private void complete(Claimed c) {
        Set<UUID> completed = inTx(
                tx -> worker.complete(tx, List.of(new WorkerTransitions.Dispatch(c.deliveryId(), c.dispatchId()))));
        assertThat(completed).containsExactly(c.deliveryId());
    }

    private void fail(Claimed c) {
        boolean failed = inTx(tx -> worker.fail(
                tx, new WorkerTransitions.Dispatch(c.deliveryId(), c.dispatchId()), FailureReason.JOB_FAILED));
        assertThat(failed).isTrue();
    }

    private Set<UUID> requeue(Claimed c) {
        return inTx(tx -> operator.requeue(tx, List.of(c.deliveryId())));
    }

    private Set<UUID> skip(Claimed c) {
        return inTx(tx -> operator.skip(tx, List.of(c.deliveryId())));
    }

    private List<OperatorTransitions.BlockedKey> blocked() {
        return inTx(tx -> operator.blockedKeys(tx, 10));
    }

    private static Claimed of(List<Claimed> claimed, String jobType) {
        return claimed.stream()
                .filter(c -> c.jobType().equals(jobType))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void recordingGivesEachKeyItsPositionsInCommitOrder() {
        UUID a1 = record("A", 1);
        UUID b1 = record("B", 1);
        UUID a2 = record("A", 2);
        List<UUID> batch = dsl.transactionResult(tx -> outbox.recordAll(
                tx.dsl(),
                List.of(
                        NewEvent.of(new ShipmentChanged("A", 3)).withOrderingKey("A"),
                        NewEvent.of(new ShipmentChanged("B", 2)).withOrderingKey("B"),
                        NewEvent.of(new ShipmentChanged("A", 4)).withOrderingKey("A"))));
        recordAndRollBack(); // rolled back: its position is given back
        UUID a5 = record("A", 5);
        UUID none = recordUnkeyed(1);

        Map<UUID, Long> positions = OutboxDsl.mapped(dsl, db.tables())
                .select(OUTBOX_EVENTS.ID, OUTBOX_EVENTS.ORDERING_POSITION)
                .from(OUTBOX_EVENTS)
                .fetchMap(OUTBOX_EVENTS.ID, OUTBOX_EVENTS.ORDERING_POSITION);
        assertThat(positions)
                .containsEntry(a1, 1L)
                .containsEntry(a2, 2L)
                .containsEntry(batch.get(0), 3L)
                .containsEntry(batch.get(2), 4L)
                .containsEntry(a5, 5L)
                .containsEntry(b1, 1L)
                .containsEntry(batch.get(1), 2L)
                .containsEntry(none, null);
    }

    private void recordAndRollBack() {
        try {
            dsl.transaction(tx -> {
                outbox.record(
                        tx.dsl(), NewEvent.of(new ShipmentChanged("A", 99)).withOrderingKey("A"));
                throw new IllegalStateException("roll back");
            });
        } catch (IllegalStateException expected) {
            return;
        }
        throw new AssertionError("the transaction did not roll back");
    }

    @Test
    void twoTransactionsOfOneKeyGoInCommitOrderWhateverTheirIds() throws Exception {
        // the first transaction records an event whose id is later than the second's, then commits first
        UUID laterId = UUID.fromString("01900000-0000-7000-8000-000000000002");
        UUID earlierId = UUID.fromString("01900000-0000-7000-8000-000000000001");
        CountDownLatch firstRecorded = new CountDownLatch(1);
        CountDownLatch secondStarted = new CountDownLatch(1);
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> dsl.transaction(tx -> {
            outbox.record(
                    tx.dsl(),
                    NewEvent.of(new ShipmentChanged("A", 1))
                            .withOrderingKey("A")
                            .withId(laterId));
            int pid = tx.dsl()
                    .fetchSingle(DSL.field("pg_backend_pid()", Integer.class))
                    .value1();
            firstRecorded.countDown();
            assertThat(secondStarted.await(10, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> db.waitersOn(pid) == 1); // the second waits on the key's row
        }));
        assertThat(firstRecorded.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> dsl.transaction(tx -> {
            secondStarted.countDown();
            outbox.record(
                    tx.dsl(),
                    NewEvent.of(new ShipmentChanged("A", 2))
                            .withOrderingKey("A")
                            .withId(earlierId));
        }));
        first.get(20, TimeUnit.SECONDS);
        second.get(20, TimeUnit.SECONDS);

        RelayTransitions relay = relay(BLOCKING);
        route(relay);
        List<Claimed> head = claim(relay);
        assertThat(events(head)).containsExactly(laterId); // committed first, whatever its id
        assertThat(claim(relay)).isEmpty();
        complete(head.get(0));
        assertThat(events(claim(relay))).containsExactly(earlierId);
    }

    @Test
    void oneInFlightPerKeyWhileOtherKeysAndUnkeyedEventsGoOn() {
        UUID a1 = record("A", 1);
        UUID a2 = record("A", 2);
        UUID a3 = record("A", 3);
        UUID b1 = record("B", 1);
        UUID none = recordUnkeyed(1);
        RelayTransitions relay = relay(BLOCKING, UNORDERED);

        RelayTransitions.Routed routed = route(relay);
        assertThat(routed.events()).isEqualTo(5);
        assertThat(routed.deliveries()).isEqualTo(10);
        assertThat(routed.unkeyed()).isEqualTo(1); // the unkeyed event's delivery of the ordered route goes unordered

        List<Claimed> first = claim(relay);
        assertThat(first.stream().filter(c -> c.jobType().equals("track")).map(Claimed::eventId))
                .containsExactlyInAnyOrder(a1, b1, none);
        assertThat(first.stream().filter(c -> c.jobType().equals("audit")).map(Claimed::eventId))
                .containsExactlyInAnyOrder(a1, a2, a3, b1, none);
        assertThat(claim(relay)).isEmpty();

        complete(first.stream()
                .filter(c -> c.jobType().equals("track") && c.eventId().equals(a1))
                .findFirst()
                .orElseThrow());
        List<Claimed> second = claim(relay);
        assertThat(events(second)).containsExactly(a2);
        complete(second.get(0));
        assertThat(events(claim(relay))).containsExactly(a3);
    }

    /** Rows of the deliveries table read so far by the current transaction (PostgreSQL's own count). */
    private long deliveryRowsRead(DSLContext tx) {
        return tx.fetchSingle(
                        "select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) from pg_stat_xact_user_tables"
                                + " where schemaname = ? and relname = ?",
                        db.tables().schema(),
                        db.tables().deliveries())
                .get(0, Long.class);
    }

    @Test
    void claimingAndLookingReadAboutOneRowPerKeyWhateverTheKeysBacklog() {
        RelayTransitions relay = relay(BLOCKING);
        int keys = 10;
        int backlog = 200;
        for (int k = 0; k < keys; k++) {
            String key = "K" + k;
            dsl.transaction(tx -> {
                for (int step = 1; step <= backlog; step++) {
                    outbox.record(
                            tx.dsl(),
                            NewEvent.of(new ShipmentChanged(key, step)).withOrderingKey(key));
                }
            });
        }
        int routed = 0;
        for (RelayTransitions.Routed batch = route(relay); batch.events() > 0; batch = route(relay)) {
            routed += batch.events();
        }
        assertThat(routed).isEqualTo(keys * backlog);
        dsl.execute("ANALYZE " + db.tables().schema() + "."
                + db.tables().deliveries()); // as autovacuum does after so many rows

        // one claim (T2, then T2o) finds the 10 heads among 2,000 pending deliveries of their keys
        long claimRead = dsl.transactionResult(tx -> {
            List<Claimed> heads = relay.claim(tx.dsl(), 100);
            assertThat(heads).hasSize(keys);
            assertThat(heads).allSatisfy(c -> assertThat(c.attempt()).isEqualTo(1));
            return deliveryRowsRead(tx.dsl());
        });
        // with every head in flight, the loop's look and a claim find nothing, reading as little
        long idleRead = dsl.transactionResult(tx -> {
            assertThat(relay.workWaiting(tx.dsl())).isFalse();
            assertThat(relay.claim(tx.dsl(), 100)).isEmpty();
            return deliveryRowsRead(tx.dsl());
        });
        assertThat(claimRead)
                .as("rows read by a claim of 10 heads behind 2,000 pending deliveries")
                .isLessThanOrEqualTo(10L * keys);
        assertThat(idleRead)
                .as("rows read by a look and a claim with every head in flight")
                .isLessThanOrEqualTo(10L * keys);
    }

    private long position(UUID event) {
        return OutboxDsl.mapped(dsl, db.tables())
                .select(OUTBOX_EVENTS.ORDERING_POSITION)
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.eq(event))
                .fetchSingle()
                .value1();
    }

    private List<String> keysLeft() {
        return OutboxDsl.mapped(dsl, db.tables())
                .select(dev.outbox.schema.Tables.OUTBOX_EVENTS_KEYS.ORDERING_KEY)
                .from(dev.outbox.schema.Tables.OUTBOX_EVENTS_KEYS)
                .orderBy(dev.outbox.schema.Tables.OUTBOX_EVENTS_KEYS.ORDERING_KEY)
                .fetch()
                .getValues(0, String.class);
    }

    @Test
    void purgingKeysDeletesOnlyTheKeysWithNothingLeftToOrder() throws Exception {
        RelayTransitions relay = relay(BLOCKING);
        record("done", 1);
        record("flying", 1);
        record("blocked", 1);
        record("recording", 1);
        route(relay);
        List<Claimed> heads = claim(relay);
        complete(headOf(heads, "done"));
        complete(headOf(heads, "recording"));
        fail(headOf(heads, "blocked"));
        record("unrouted", 1);
        assertThat(keysLeft()).containsExactly("blocked", "done", "flying", "recording", "unrouted");

        // a recording transaction of "recording" is open: it holds the key's row, and its event is not yet visible
        try (java.sql.Connection open = db.dataSource().getConnection()) {
            open.setAutoCommit(false);
            UUID second = outbox.record(
                    DSL.using(open, SQLDialect.POSTGRES),
                    NewEvent.of(new ShipmentChanged("recording", 2)).withOrderingKey("recording"));

            OperatorTransitions.KeysSwept swept = inTx(tx -> operator.purgeKeys(tx, null, 100));
            assertThat(swept.deleted()).isEqualTo(1);
            assertThat(keysLeft()).containsExactly("blocked", "flying", "recording", "unrouted");
            open.commit();
            assertThat(position(second)).isEqualTo(2);
        }
        int purgeable = inTx(tx -> operator.countKeys(tx));
        assertThat(purgeable).isZero(); // "recording" has an unrouted event now
        // the purged key starts again at 1; nothing of it is left to compare with
        UUID again = record("done", 2);
        assertThat(position(again)).isEqualTo(1);
        assertThat(position(record("flying", 2))).isEqualTo(2);
    }

    private Claimed headOf(List<Claimed> claimed, String key) {
        return claimed.stream()
                .filter(c -> key.equals(OutboxDsl.mapped(dsl, db.tables())
                        .select(OUTBOX_EVENTS.ORDERING_KEY)
                        .from(OUTBOX_EVENTS)
                        .where(OUTBOX_EVENTS.ID.eq(c.eventId()))
                        .fetchSingle()
                        .value1()))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aRetryingHeadHoldsItsKeyUntilItCompletes() {
        UUID a1 = record("A", 1);
        UUID a2 = record("A", 2);
        RelayTransitions relay = relay(BLOCKING);
        route(relay);
        Claimed head = claim(relay).get(0);

        java.util.Optional<RetryOutcome> retry = inTx(
                tx -> worker.retryOrFail(tx, new WorkerTransitions.Dispatch(head.deliveryId(), head.dispatchId())));
        assertThat(retry).hasValueSatisfying(r -> assertThat(r.retried()).isTrue());
        assertThat(claim(relay)).isEmpty(); // a2 waits behind its head's retry
        boolean waiting = inTx(relay::workWaiting);
        assertThat(waiting).isFalse();

        clock.advance(Duration.ofSeconds(61));
        List<Claimed> again = claim(relay);
        assertThat(events(again)).containsExactly(a1);
        complete(again.get(0));
        assertThat(events(claim(relay))).containsExactly(a2);
    }

    @Test
    void aFailedHeadBlocksItsKeyOnTheBlockRouteAndTheSkipRouteGoesOn() {
        UUID a1 = record("A", 1);
        UUID a2 = record("A", 2);
        UUID b1 = record("B", 1);
        RelayTransitions relay = relay(BLOCKING, SKIPPING);
        route(relay);
        List<Claimed> first = claim(relay);
        for (Claimed c : first) {
            if (c.eventId().equals(a1)) {
                fail(c);
            }
        }

        List<Claimed> next = claim(relay);
        assertThat(next).singleElement().satisfies(c -> {
            assertThat(c.eventId()).isEqualTo(a2);
            assertThat(c.jobType()).isEqualTo("notify");
        });
        List<OperatorTransitions.BlockedKey> blocked = dsl.transactionResult(tx -> operator.blockedKeys(tx.dsl(), 10));
        assertThat(blocked).singleElement().satisfies(k -> {
            assertThat(k.jobType()).isEqualTo("track");
            assertThat(k.orderingKey()).isEqualTo("A");
            assertThat(k.eventId()).isEqualTo(a1);
            assertThat(k.failureReason()).isEqualTo("job_failed");
        });
        assertThat(first.stream().filter(c -> c.eventId().equals(b1))).hasSize(2); // the other key was never held up
    }

    @Test
    void skippingABlockedHeadLetsTheKeyGoOnAndRequeueingItRunsItInItsPlace() {
        UUID a1 = record("A", 1);
        UUID a2 = record("A", 2);
        UUID a3 = record("A", 3);
        RelayTransitions relay = relay(BLOCKING);
        route(relay);
        Claimed head = claim(relay).get(0);
        fail(head);
        assertThat(claim(relay)).isEmpty();

        // requeue the head: it runs again in its place, before a2
        assertThat(requeue(head)).containsExactly(head.deliveryId());
        Claimed again = claim(relay).get(0);
        assertThat(again.eventId()).isEqualTo(a1);
        fail(again);

        // skip it: it stays failed, the key goes on with a2; a skip is guarded (a second one changes nothing)
        assertThat(skip(head)).containsExactly(head.deliveryId());
        assertThat(skip(head)).isEmpty();
        assertThat(blocked()).isEmpty();
        Claimed second = claim(relay).get(0);
        assertThat(second.eventId()).isEqualTo(a2);

        // the skipped head requeued while a2 is in flight: it waits for a2, then goes before a3
        assertThat(requeue(head)).containsExactly(head.deliveryId());
        assertThat(claim(relay)).isEmpty();
        complete(second);
        Claimed requeued = claim(relay).get(0);
        assertThat(requeued.eventId()).isEqualTo(a1);
        assertThat(claim(relay)).isEmpty();
        complete(requeued);
        assertThat(events(claim(relay))).containsExactly(a3);
        assertThat(OutboxDsl.mapped(dsl, db.tables())
                        .fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.SKIPPED_AT.isNotNull()))
                .isZero();
    }

    @Test
    void aSecondRelayClaimsNoOrderedDeliveryWhileAnotherIsClaiming() throws Exception {
        record("A", 1);
        record("B", 1);
        RelayTransitions one = relay(BLOCKING);
        RelayTransitions two = relay(BLOCKING);
        route(one);
        List<Claimed> byTwo = new ArrayList<>();
        dsl.transaction(tx -> {
            assertThat(one.claim(tx.dsl(), 1)).hasSize(1); // holds T2o's lock until this transaction ends
            byTwo.addAll(CompletableFuture.supplyAsync(() -> claim(two)).get(10, TimeUnit.SECONDS));
        });
        assertThat(byTwo).isEmpty();
        assertThat(claim(two)).hasSize(1);
        assertThat(OutboxDsl.mapped(dsl, db.tables())
                        .fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.dispatched)))
                .isEqualTo(2);
        assertThat(Set.copyOf(OutboxDsl.mapped(dsl, db.tables())
                        .select(OUTBOX_DELIVERIES.ORDERING_KEY)
                        .from(OUTBOX_DELIVERIES)
                        .fetch(OUTBOX_DELIVERIES.ORDERING_KEY)))
                .containsExactlyInAnyOrder("A", "B");
    }
}
