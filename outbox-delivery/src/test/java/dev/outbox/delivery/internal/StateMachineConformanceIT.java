package dev.outbox.delivery.internal;

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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jooq.DSLContext;
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
 * River-style conformance of the delivery state machine (docs/state-machine.md): every transition
 * the relay and the worker write, from every status, with the current and a stale dispatch id, and
 * for T2, T4 and T4u with {@code available_at} / {@code delivery_timeout_at} before, at and after now;
 * dispatched rows picked up by a worker (T2s) or not.
 * Where the guard admits the case the row becomes exactly the documented one (the whole row is
 * compared); where it refuses, the transition reports nothing and the row is untouched: the same
 * text in PostgreSQL and the same {@code xmin} (no new row version was written at all).
 */
class StateMachineConformanceIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final OffsetDateTime NOW = OffsetDateTime.of(2030, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC);
    /** The route of every row here: two retries, 29 s to deliver. */
    static final DeliveryTemplate ROUTE =
            new DeliveryTemplate(RouteKind.JOB, "send-confirmation", "emails", null, null, List.of(60, 120), 29);

    static DSLContext dsl;
    static DSLContext ctx;
    static RelayTransitions relay;
    static WorkerTransitions worker;
    static StoredRows rows;

    @BeforeAll
    static void setUp() {
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        ctx = OutboxDsl.mapped(dsl, db.tables());
        Clock clock = Clock.fixed(NOW.toInstant(), ZoneOffset.UTC);
        relay = new RelayTransitions(db.tables(), new RouteTable(Map.of("order.placed", List.of(ROUTE))), clock);
        worker = new WorkerTransitions(new DeliveryTransitions(db.tables(), clock));
        rows = new StoredRows(dsl, ctx, db.tables());
    }

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
    }

    // ---------------------------------------------------------------- the matrix

    /** The transitions on an existing delivery, each as its caller calls it. */
    enum Transition {
        T2_CLAIM("T2 claim", false),
        T2S_START("T2s start", true),
        T2S_START_AGAIN("T2s start again", true),
        PUBLISH_COMPLETION("publish completion", true),
        T3_PUBLISH_REFUSED("T3 publish refused", true),
        T3U_RELEASE_UNSENT("T3u release unsent", true),
        T4_TIMED_OUT("T4 timed out", false),
        T4U_TIMED_OUT_UNSTARTED("T4u timed out unstarted", false),
        T5_COMPLETED("T5 completed", true),
        T6_RETRYABLE_ERROR("T6 retryable error", true),
        T7_JOB_FAILED("T7 job failed", true),
        T8_WORKER_DIED("T8 worker died", true);

        final String label;
        final boolean takesDispatchId;

        Transition(String label, boolean takesDispatchId) {
            this.label = label;
            this.takesDispatchId = takesDispatchId;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** The dispatch id the transition is called with. */
    enum Dispatch {
        CURRENT("current dispatch id"),
        STALE("stale dispatch id"),
        NONE("no dispatch id");

        final String label;

        Dispatch(String label) {
            this.label = label;
        }
    }

    /** Where the row's available_at (T2) or delivery_timeout_at (T4) stands against now. */
    enum When {
        BEFORE_NOW(-1),
        AT_NOW(0),
        AFTER_NOW(1),
        DEFAULT(0);

        final int sign;

        When(int sign) {
            this.sign = sign;
        }
    }

    /**
     * The row's attempts against its delays [60, 120]: never dispatched (pending with no dispatch
     * id), attempt 1 (a retry left), or attempt 3 (none left).
     */
    enum Attempt {
        NEVER(0),
        FIRST(1),
        LAST(3);

        final int attempts;

        Attempt(int attempts) {
            this.attempts = attempts;
        }
    }

    /**
     * Whether and when a worker picked the dispatch up (T2s), for dispatched rows: not (with no
     * unstarted timeout yet, or with {@link RelayTransitions#MAX_UNSTARTED_TIMEOUTS} of them), or
     * started so long ago that the route's timeout counted from the start has passed, or started 10 s ago.
     */
    enum Start {
        NOT_STARTED("not started"),
        NOT_STARTED_AT_BOUND("not started, unstarted timeouts at the bound"),
        STARTED_OVERDUE("started 30 s ago"),
        STARTED_RUNNING("started 10 s ago");

        final String label;

        Start(String label) {
            this.label = label;
        }

        boolean started() {
            return this == STARTED_OVERDUE || this == STARTED_RUNNING;
        }
    }

    record Case(
            Transition transition,
            OutboxDeliveryStatus from,
            Dispatch dispatch,
            When when,
            Attempt attempt,
            Start start) {

        /** The guard of each transition, as docs/state-machine.md states it. */
        boolean admitted() {
            boolean dispatched = from == OutboxDeliveryStatus.dispatched;
            boolean current = dispatched && dispatch == Dispatch.CURRENT;
            return switch (transition) {
                case T2_CLAIM -> from == OutboxDeliveryStatus.pending && when.sign <= 0;
                case T2S_START -> current && !start.started();
                case T2S_START_AGAIN -> current;
                case T3U_RELEASE_UNSENT -> current && !start.started();
                case T4_TIMED_OUT ->
                    dispatched
                            && when.sign <= 0
                            && (start == Start.STARTED_OVERDUE || start == Start.NOT_STARTED_AT_BOUND);
                case T4U_TIMED_OUT_UNSTARTED -> dispatched && when.sign <= 0 && start == Start.NOT_STARTED;
                default -> current;
            };
        }

        boolean timedOut() {
            return transition == Transition.T4_TIMED_OUT || transition == Transition.T4U_TIMED_OUT_UNSTARTED;
        }

        @Override
        public String toString() {
            String timing = switch (when) {
                case DEFAULT -> "";
                case BEFORE_NOW, AT_NOW, AFTER_NOW ->
                    ", " + (transition == Transition.T2_CLAIM ? "available_at " : "delivery_timeout_at ")
                            + when.name().toLowerCase().replace('_', ' ');
            };
            return transition + " from " + from.name().toLowerCase() + " (attempt " + attempt.attempts + "), "
                    + dispatch.label + timing
                    + (from == OutboxDeliveryStatus.dispatched ? ", " + start.label : "")
                    + (admitted() ? " -> changes the row" : " -> changes nothing");
        }
    }

    static Stream<Arguments> matrix() {
        List<Case> cases = new ArrayList<>();
        for (Transition t : Transition.values()) {
            for (OutboxDeliveryStatus from : OutboxDeliveryStatus.values()) {
                List<Attempt> attempts = switch (from) {
                    case pending -> List.of(Attempt.NEVER, Attempt.FIRST);
                    case dispatched -> List.of(Attempt.FIRST, Attempt.LAST);
                    case completed, failed -> List.of(Attempt.FIRST);
                };
                for (Attempt attempt : attempts) {
                    List<Dispatch> ids = !t.takesDispatchId
                            ? List.of(Dispatch.NONE)
                            // a row never dispatched has no dispatch id of its own to be called with
                            : attempt == Attempt.NEVER
                                    ? List.of(Dispatch.STALE)
                                    : List.of(Dispatch.CURRENT, Dispatch.STALE);
                    boolean sweep = t == Transition.T4_TIMED_OUT || t == Transition.T4U_TIMED_OUT_UNSTARTED;
                    boolean timed = t == Transition.T2_CLAIM || (sweep && from == OutboxDeliveryStatus.dispatched);
                    List<When> whens =
                            timed ? List.of(When.BEFORE_NOW, When.AT_NOW, When.AFTER_NOW) : List.of(When.DEFAULT);
                    List<Start> starts = from != OutboxDeliveryStatus.dispatched
                            ? List.of(Start.NOT_STARTED)
                            : sweep ? List.of(Start.values()) : List.of(Start.NOT_STARTED, Start.STARTED_RUNNING);
                    for (Dispatch id : ids) {
                        for (When when : whens) {
                            for (Start start : starts) {
                                cases.add(new Case(t, from, id, when, attempt, start));
                            }
                        }
                    }
                }
            }
        }
        return cases.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("matrix")
    void everyTransitionFromEveryStatusChangesExactlyWhatItsGuardAdmits(Case c) {
        OutboxDeliveriesRecord before = row(c).insert(ctx);
        OutboxEventsRecord eventBefore = rows.event(before.getEventId());
        StoredRows.Stored stored = rows.stored(before.getId());
        UUID dispatchId = c.dispatch() == Dispatch.CURRENT ? before.getDispatchId() : UUID.randomUUID();

        Set<UUID> changed = apply(c.transition(), before.getId(), dispatchId);

        OutboxDeliveriesRecord after = rows.delivery(before.getId());
        assertThat(rows.event(before.getEventId())).as("the event").isEqualTo(eventBefore);
        if (c.admitted()) {
            assertThat(changed).as("what the transition reports").containsExactly(before.getId());
            assertThat(after).isEqualTo(expected(c, before, after));
        } else {
            assertThat(changed).as("what the transition reports").isEmpty();
            assertThat(rows.stored(before.getId())).as("the row, untouched").isEqualTo(stored);
            assertThat(after).isEqualTo(before);
        }
    }

    /** A valid row in the case's from-status, attempt and timing. */
    private static DeliveryRows row(Case c) {
        DeliveryRows row = DeliveryRows.delivery(c.from(), NOW)
                .retryDelays(ROUTE.retryDelaysSeconds())
                .timeoutSeconds(ROUTE.deliveryTimeoutSeconds())
                .attempts(c.attempt().attempts);
        if (c.attempt() == Attempt.NEVER) {
            row.dispatchId(null);
        } else if (c.from() == OutboxDeliveryStatus.pending) {
            // back in pending after a retry: it keeps the id of its last dispatch
            row.dispatchId(UUID.randomUUID()).availableAt(NOW.plusSeconds(60));
        }
        if (c.transition() == Transition.T2_CLAIM) {
            row.availableAt(NOW.plusSeconds(60L * c.when().sign));
        } else if (c.timedOut() && c.from() == OutboxDeliveryStatus.dispatched) {
            row.deliveryTimeoutAt(NOW.plusSeconds(10L * c.when().sign));
        }
        if (c.from() == OutboxDeliveryStatus.dispatched) {
            // dispatched 30 s before now (the rows' default); the route's timeout is 29 s
            switch (c.start()) {
                case NOT_STARTED -> row.startedAt(null);
                case NOT_STARTED_AT_BOUND ->
                    row.startedAt(null).unstartedTimeouts(RelayTransitions.MAX_UNSTARTED_TIMEOUTS);
                case STARTED_OVERDUE -> row.startedAt(NOW.minusSeconds(30));
                case STARTED_RUNNING -> row.startedAt(NOW.minusSeconds(10));
            }
        }
        return row;
    }

    /** Calls the transition as relay or worker does; returns the deliveries it says it changed. */
    private static Set<UUID> apply(Transition t, UUID deliveryId, UUID dispatchId) {
        UUID[] ids = {deliveryId};
        UUID[] dispatchIds = {dispatchId};
        WorkerTransitions.Dispatch dispatch = new WorkerTransitions.Dispatch(deliveryId, dispatchId);
        return switch (t) {
            case T2_CLAIM ->
                relay.claim(dsl, 10).stream().map(Claimed::deliveryId).collect(Collectors.toSet());
            case T2S_START -> worker.start(dsl, List.of(dispatch), false);
            case T2S_START_AGAIN -> worker.start(dsl, List.of(dispatch), true);
            case PUBLISH_COMPLETION -> Set.copyOf(relay.completePublished(dsl, ids, dispatchIds));
            case T3_PUBLISH_REFUSED -> outcomes(relay.publishRefused(dsl, ids, dispatchIds));
            case T3U_RELEASE_UNSENT -> Set.copyOf(relay.releaseUnsent(dsl, ids, dispatchIds));
            case T4_TIMED_OUT -> outcomes(relay.timeOut(dsl, 10));
            case T4U_TIMED_OUT_UNSTARTED ->
                relay.timeOutUnstarted(dsl, 10).stream()
                        .map(RelayTransitions.UnstartedTimeout::deliveryId)
                        .collect(Collectors.toSet());
            case T5_COMPLETED -> worker.complete(dsl, List.of(dispatch));
            case T6_RETRYABLE_ERROR ->
                outcomes(worker.retryOrFail(dsl, dispatch).stream().toList());
            case T7_JOB_FAILED -> worker.fail(dsl, dispatch, FailureReason.JOB_FAILED) ? Set.of(deliveryId) : Set.of();
            case T8_WORKER_DIED -> worker.workerDied(dsl, dispatch) ? Set.of(deliveryId) : Set.of();
        };
    }

    private static Set<UUID> outcomes(List<RetryOutcome> outcomes) {
        return outcomes.stream().map(RetryOutcome::deliveryId).collect(Collectors.toSet());
    }

    /** The row docs/state-machine.md describes after an admitted transition of {@code before}. */
    private static OutboxDeliveriesRecord expected(
            Case c, OutboxDeliveriesRecord before, OutboxDeliveriesRecord after) {
        OutboxDeliveriesRecord e = before.copy();
        e.setId(before.getId());
        e.setUpdatedAt(NOW);
        switch (c.transition()) {
            case T2_CLAIM -> {
                // a new dispatch id, attempts + 1, dispatched now, due after the route's timeout
                assertThat(after.getDispatchId())
                        .as("the new dispatch id")
                        .isNotNull()
                        .isNotEqualTo(before.getDispatchId());
                e.setStatus(OutboxDeliveryStatus.dispatched);
                e.setDispatchId(after.getDispatchId());
                e.setAttempts(before.getAttempts() + 1);
                e.setDispatchedAt(NOW);
                e.setDeliveryTimeoutAt(NOW.plusSeconds(ROUTE.deliveryTimeoutSeconds()));
            }
            case T2S_START, T2S_START_AGAIN -> e.setStartedAt(NOW); // picked up now; the status stays dispatched
            case T4U_TIMED_OUT_UNSTARTED -> {
                // as before T2, and counted as a timeout before any start
                e.setStatus(OutboxDeliveryStatus.pending);
                e.setAttempts(before.getAttempts() - 1);
                e.setUnstartedTimeouts(before.getUnstartedTimeouts() + 1);
                e.setDispatchedAt(null);
                e.setDeliveryTimeoutAt(null);
            }
            case PUBLISH_COMPLETION, T5_COMPLETED -> {
                e.setStatus(OutboxDeliveryStatus.completed);
                e.setCompletedAt(NOW);
                e.setDeliveryTimeoutAt(null);
            }
            case T3U_RELEASE_UNSENT -> {
                // as before T2: the attempt is not counted, available_at kept
                e.setStatus(OutboxDeliveryStatus.pending);
                e.setAttempts(before.getAttempts() - 1);
                e.setDispatchedAt(null);
                e.setDeliveryTimeoutAt(null);
            }
            case T3_PUBLISH_REFUSED -> retryOrFail(e, before, "publish_failed");
            case T4_TIMED_OUT -> retryOrFail(e, before, before.getStartedAt() == null ? "never_started" : "timeout");
            case T6_RETRYABLE_ERROR -> retryOrFail(e, before, "retries_exhausted");
            case T7_JOB_FAILED -> failed(e, "job_failed");
            case T8_WORKER_DIED -> failed(e, "worker_died");
        }
        return e;
    }

    /** Attempt k of delays [d1 … dn]: pending at now + dk while k <= n, else failed with the transition's reason. */
    private static void retryOrFail(OutboxDeliveriesRecord e, OutboxDeliveriesRecord before, String reason) {
        Integer[] delays = before.getRetryDelaysSeconds();
        int attempts = before.getAttempts();
        if (attempts <= delays.length) {
            e.setStatus(OutboxDeliveryStatus.pending);
            e.setAvailableAt(NOW.plusSeconds(delays[attempts - 1]));
            e.setDispatchedAt(null);
            e.setStartedAt(null);
            e.setDeliveryTimeoutAt(null);
        } else {
            failed(e, reason);
        }
    }

    private static void failed(OutboxDeliveriesRecord e, String reason) {
        e.setStatus(OutboxDeliveryStatus.failed);
        e.setFailedAt(NOW);
        e.setFailureReason(reason);
        e.setDeliveryTimeoutAt(null);
    }

    // ---------------------------------------------------------------- T1

    /** The delivery of {@link #ROUTE} that exists before T1 runs (null: none). */
    static Stream<Arguments> routing() {
        List<Arguments> cases = new ArrayList<>();
        List<@Nullable OutboxDeliveryStatus> existing = new ArrayList<>();
        existing.add(null);
        existing.addAll(List.of(OutboxDeliveryStatus.values()));
        for (OutboxDeliveryStatus status : existing) {
            for (boolean routed : List.of(false, true)) {
                cases.add(Arguments.of(status, routed));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "T1 route, event routed: {1}, existing delivery: {0}")
    @MethodSource("routing")
    void routingCreatesAPendingDeliveryOnlyForAnUnroutedEventAndNeverTouchesAnExistingOne(
            @Nullable OutboxDeliveryStatus existing, boolean routed) {
        UUID eventId = DeliveryRows.event(ctx, NOW.minusHours(1), routed ? NOW.minusMinutes(30) : null);
        OutboxDeliveriesRecord before = existing == null
                ? null
                : DeliveryRows.delivery(existing, NOW).event(eventId).insert(ctx);
        StoredRows.Stored stored = before == null ? null : rows.stored(before.getId());
        OutboxEventsRecord eventBefore = rows.event(eventId);

        RelayTransitions.Routed result = relay.route(dsl, 10, null);

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
                        .retryDelays(ROUTE.retryDelaysSeconds())
                        .timeoutSeconds(ROUTE.deliveryTimeoutSeconds())
                        .availableAt(NOW)
                        .createdAt(NOW)
                        .record());
    }
}
