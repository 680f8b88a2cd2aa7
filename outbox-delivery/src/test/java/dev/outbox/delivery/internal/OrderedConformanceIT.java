package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.RouteTable;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.schema.tables.records.OutboxEventsRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Conformance of the ordered transitions (docs/state-machine.md, docs/ordering.md) in the style of
 * {@link StateMachineConformanceIT}: T2o claims a pending delivery of a key beside one other delivery
 * in every status, ahead of it or behind it, of the same key, another key or another route; T9s
 * (skip) and T9 (requeue) from every status, under both policies, skipped or not; T1o routes a keyed
 * event whatever delivery of its route exists. Where the guard admits the case the row becomes
 * exactly the documented one; where it refuses, the row is untouched (the same text and the same
 * {@code xmin}).
 */
class OrderedConformanceIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final OffsetDateTime NOW = OffsetDateTime.of(2030, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC);
    static final String KEY = "order-7";
    static final String BLOCK = DeliveryTemplate.BLOCK;
    static final String SKIP = DeliveryTemplate.SKIP;

    static DSLContext dsl;
    static DSLContext ctx;
    static OperatorTransitions operator;
    static StoredRows rows;

    @BeforeAll
    static void setUp() {
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        ctx = OutboxDsl.mapped(dsl, db.tables());
        operator = new OperatorTransitions(db.tables(), Clock.fixed(NOW.toInstant(), ZoneOffset.UTC));
        rows = new StoredRows(dsl, ctx, db.tables());
    }

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
    }

    /** The ordered route of every row here (the rows' defaults: job send-confirmation to emails, [60, 120], 29 s). */
    static DeliveryTemplate route(String policy) {
        return new DeliveryTemplate(
                RouteKind.JOB, "send-confirmation", "emails", null, null, List.of(60, 120), 29, policy);
    }

    static RelayTransitions relay(String policy) {
        return new RelayTransitions(
                db.tables(),
                new RouteTable(Map.of("order.placed", List.of(route(policy)))),
                Clock.fixed(NOW.toInstant(), ZoneOffset.UTC));
    }

    // ---------------------------------------------------------------- T2o

    /** Where the other delivery stands: the same (route, key), another key of the route, or the same key on another route. */
    enum Other {
        SAME_KEY,
        OTHER_KEY,
        OTHER_ROUTE
    }

    /**
     * The candidate: pending and available at position 2 of {@link #KEY}. The other delivery: in
     * {@code status}, at position 1 (ahead) or 3 (behind), skipped or not (failed only).
     */
    record Claim(String policy, Other other, OutboxDeliveryStatus status, boolean ahead, boolean skipped) {

        /** T2o's guard: no delivery of the key dispatched, none before it pending, none before it failed, blocking and not skipped. */
        boolean candidateAdmitted() {
            if (other != Other.SAME_KEY) {
                return true;
            }
            return switch (status) {
                case dispatched -> false;
                case pending -> !ahead;
                case failed -> !(ahead && policy.equals(BLOCK) && !skipped);
                case completed -> true;
            };
        }

        /** The other delivery is itself the head of its key (pending, with nothing ahead of it pending). */
        boolean otherAdmitted() {
            return status == OutboxDeliveryStatus.pending && (other != Other.SAME_KEY || ahead);
        }

        @Override
        public String toString() {
            return "T2o, policy " + policy + ", " + other.name().toLowerCase().replace('_', ' ') + " "
                    + status.name().toLowerCase() + (skipped ? " and skipped" : "") + (ahead ? " ahead" : " behind")
                    + (candidateAdmitted() ? " -> claims it" : " -> leaves it");
        }
    }

    static Stream<Arguments> claims() {
        List<Claim> cases = new ArrayList<>();
        for (String policy : List.of(BLOCK, SKIP)) {
            for (Other other : Other.values()) {
                for (OutboxDeliveryStatus status : OutboxDeliveryStatus.values()) {
                    for (boolean ahead : List.of(true, false)) {
                        for (boolean skipped :
                                status == OutboxDeliveryStatus.failed ? List.of(false, true) : List.of(false)) {
                            cases.add(new Claim(policy, other, status, ahead, skipped));
                        }
                    }
                }
            }
        }
        return cases.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("claims")
    void t2oClaimsTheHeadOfAKeyAndNothingBehindOrBesideIt(Claim c) {
        OutboxDeliveriesRecord candidate = DeliveryRows.delivery(OutboxDeliveryStatus.pending, NOW)
                .ordering(KEY, 2, c.policy())
                .insert(ctx);
        DeliveryRows otherRow = DeliveryRows.delivery(c.status(), NOW)
                .ordering(c.other() == Other.OTHER_KEY ? "order-8" : KEY, c.ahead() ? 1 : 3, c.policy());
        if (c.other() == Other.OTHER_ROUTE) {
            otherRow.jobType("send-invoice");
        }
        if (c.skipped()) {
            otherRow.skippedAt(NOW.minusSeconds(5));
        }
        OutboxDeliveriesRecord other = otherRow.insert(ctx);
        StoredRows.Stored candidateStored = rows.stored(candidate.getId());
        StoredRows.Stored otherStored = rows.stored(other.getId());

        Set<UUID> claimed = relay(c.policy()).claim(dsl, 10).stream()
                .map(Claimed::deliveryId)
                .collect(Collectors.toSet());

        Set<UUID> expected = new HashSet<>();
        if (c.candidateAdmitted()) {
            expected.add(candidate.getId());
        }
        if (c.otherAdmitted()) {
            expected.add(other.getId());
        }
        assertThat(claimed).as("what T2o claims").isEqualTo(expected);
        OutboxDeliveriesRecord after = rows.delivery(candidate.getId());
        if (c.candidateAdmitted()) {
            assertThat(after).isEqualTo(dispatchedNow(candidate, after));
        } else {
            assertThat(rows.stored(candidate.getId()))
                    .as("the candidate, untouched")
                    .isEqualTo(candidateStored);
        }
        if (!c.otherAdmitted()) {
            assertThat(rows.stored(other.getId()))
                    .as("the other delivery, untouched")
                    .isEqualTo(otherStored);
        }
    }

    /** T2's row: a new dispatch id, attempts + 1, dispatched now, due after the route's timeout; the ordering columns kept. */
    private static OutboxDeliveriesRecord dispatchedNow(OutboxDeliveriesRecord before, OutboxDeliveriesRecord after) {
        assertThat(after.getDispatchId()).as("the new dispatch id").isNotNull().isNotEqualTo(before.getDispatchId());
        OutboxDeliveriesRecord e = before.copy();
        e.setId(before.getId());
        e.setStatus(OutboxDeliveryStatus.dispatched);
        e.setDispatchId(after.getDispatchId());
        e.setAttempts(before.getAttempts() + 1);
        e.setDispatchedAt(NOW);
        e.setDeliveryTimeoutAt(NOW.plusSeconds(29));
        e.setUpdatedAt(NOW);
        return e;
    }

    // ---------------------------------------------------------------- T9s and T9

    enum Operation {
        T9S_SKIP("T9s skip"),
        T9_REQUEUE("T9 requeue");

        final String label;

        Operation(String label) {
            this.label = label;
        }
    }

    record Operate(Operation operation, OutboxDeliveryStatus status, String policy, boolean skipped) {

        boolean admitted() {
            boolean failed = status == OutboxDeliveryStatus.failed;
            return operation == Operation.T9_REQUEUE ? failed : failed && policy.equals(BLOCK) && !skipped;
        }

        @Override
        public String toString() {
            return operation.label + " from " + status.name().toLowerCase() + (skipped ? " and skipped" : "")
                    + ", policy " + policy + (admitted() ? " -> changes the row" : " -> changes nothing");
        }
    }

    static Stream<Arguments> operations() {
        List<Operate> cases = new ArrayList<>();
        for (Operation op : Operation.values()) {
            for (OutboxDeliveryStatus status : OutboxDeliveryStatus.values()) {
                for (String policy : List.of(BLOCK, SKIP)) {
                    for (boolean skipped :
                            status == OutboxDeliveryStatus.failed ? List.of(false, true) : List.of(false)) {
                        cases.add(new Operate(op, status, policy, skipped));
                    }
                }
            }
        }
        return cases.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("operations")
    void skipAndRequeueChangeExactlyWhatTheirGuardsAdmit(Operate c) {
        DeliveryRows row = DeliveryRows.delivery(c.status(), NOW).ordering(KEY, 1, c.policy());
        if (c.skipped()) {
            row.skippedAt(NOW.minusSeconds(5));
        }
        OutboxDeliveriesRecord before = row.insert(ctx);
        StoredRows.Stored stored = rows.stored(before.getId());

        Set<UUID> changed = c.operation() == Operation.T9S_SKIP
                ? operator.skip(dsl, List.of(before.getId()))
                : operator.requeue(dsl, List.of(before.getId()));

        OutboxDeliveriesRecord after = rows.delivery(before.getId());
        if (c.admitted()) {
            assertThat(changed).as("what the transition reports").containsExactly(before.getId());
            OutboxDeliveriesRecord e = before.copy();
            e.setId(before.getId());
            e.setUpdatedAt(NOW);
            if (c.operation() == Operation.T9S_SKIP) {
                e.setSkippedAt(NOW); // stays failed; its key goes on
            } else {
                e.setStatus(OutboxDeliveryStatus.pending);
                e.setAttempts(0);
                e.setAvailableAt(NOW);
                e.setFailedAt(null);
                e.setFailureReason(null);
                e.setDispatchId(null);
                e.setDispatchedAt(null);
                e.setStartedAt(null);
                e.setUnstartedTimeouts(0);
                e.setDeliveryTimeoutAt(null);
                e.setSkippedAt(null); // runs again in its place
            }
            assertThat(after).isEqualTo(e);
        } else {
            assertThat(changed).as("what the transition reports").isEmpty();
            assertThat(rows.stored(before.getId())).as("the row, untouched").isEqualTo(stored);
        }
    }

    // ---------------------------------------------------------------- T1o

    static Stream<Arguments> routing() {
        List<Arguments> cases = new ArrayList<>();
        List<@Nullable OutboxDeliveryStatus> existing = new ArrayList<>();
        existing.add(null);
        existing.addAll(List.of(OutboxDeliveryStatus.values()));
        for (String policy : List.of(BLOCK, SKIP)) {
            for (OutboxDeliveryStatus status : existing) {
                for (boolean routed : List.of(false, true)) {
                    cases.add(Arguments.of(policy, status, routed));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "T1o, policy {0}, event routed: {2}, existing delivery: {1}")
    @MethodSource("routing")
    void t1oRoutesAKeyedEventOnceWithItsKeyPositionAndPolicy(
            String policy, @Nullable OutboxDeliveryStatus existing, boolean routed) {
        UUID eventId = UUID.randomUUID();
        ctx.insertInto(OUTBOX_EVENTS)
                .set(OUTBOX_EVENTS.ID, eventId)
                .set(OUTBOX_EVENTS.EVENT_TYPE, "order.placed")
                .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{}"))
                .set(OUTBOX_EVENTS.CREATED_AT, NOW.minusHours(1))
                .set(OUTBOX_EVENTS.ROUTED_AT, routed ? NOW.minusMinutes(30) : null)
                .set(OUTBOX_EVENTS.ORDERING_KEY, KEY)
                .set(OUTBOX_EVENTS.ORDERING_POSITION, 4L)
                .execute();
        OutboxDeliveriesRecord before = existing == null
                ? null
                : DeliveryRows.delivery(existing, NOW)
                        .event(eventId)
                        .ordering(KEY, 4, policy)
                        .insert(ctx);
        StoredRows.Stored stored = before == null ? null : rows.stored(before.getId());
        OutboxEventsRecord eventBefore = rows.event(eventId);

        RelayTransitions.Routed result = relay(policy).route(dsl, 10, null);

        rows.assertRouted(
                result,
                eventId,
                routed,
                eventBefore,
                before,
                stored,
                NOW,
                id -> DeliveryRows.delivery(OutboxDeliveryStatus.pending, NOW)
                        .id(id)
                        .event(eventId)
                        .availableAt(NOW)
                        .createdAt(NOW)
                        .ordering(KEY, 4, policy)
                        .record());
    }
}
