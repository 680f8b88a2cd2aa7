package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.internal.WorkerTransitions.Dispatch;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Conformance of the worker's transitions: each one tried from every status, with the current and with
 * a stale dispatch id. From dispatched with the current dispatch it changes exactly that row and sets
 * its columns; from anywhere else, or with another dispatch id, it changes nothing and says so.
 */
class WorkerTransitionsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    static final OffsetDateTime T0 = NOW.minusSeconds(30).atOffset(ZoneOffset.UTC);

    static DSLContext dsl;
    static DSLContext mapped;
    static WorkerTransitions transitions;

    @BeforeAll
    static void setUp() {
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        mapped = OutboxDsl.mapped(dsl, db.tables());
        transitions = new WorkerTransitions(new DeliveryTransitions(db.tables(), Clock.fixed(NOW, ZoneOffset.UTC)));
    }

    /** A delivery in {@code status}, valid for the table's checks, with delays [60]; returns its current dispatch. */
    static Dispatch insert(OutboxDeliveryStatus status) {
        Dispatch d = new Dispatch(UUID.randomUUID(), UUID.randomUUID());
        DeliveryRows.delivery(status, T0)
                .id(d.deliveryId())
                .dispatchId(d.dispatchId())
                .attempts(1)
                .retryDelays(List.of(60))
                .timeoutSeconds(300)
                .availableAt(T0)
                .dispatchedAt(T0)
                .finishedAt(T0)
                .failureReason("timeout")
                .createdAt(T0)
                .updatedAt(T0)
                .insert(mapped);
        return d;
    }

    static OutboxDeliveriesRecord row(UUID id) {
        return mapped.selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(id))
                .fetchSingle();
    }

    /** Each transition, as "did it change the row?". */
    static final List<Arguments> TRANSITIONS = List.of(
            Arguments.of("T5 complete", (BiFunction<DSLContext, Dispatch, Boolean>)
                    (ctx, d) -> !transitions.complete(ctx, List.of(d)).isEmpty()),
            Arguments.of("T6 retryOrFail", (BiFunction<DSLContext, Dispatch, Boolean>)
                    (ctx, d) -> transitions.retryOrFail(ctx, d).isPresent()),
            Arguments.of("T7 fail", (BiFunction<DSLContext, Dispatch, Boolean>)
                    (ctx, d) -> transitions.fail(ctx, d, FailureReason.JOB_FAILED)),
            Arguments.of("T8 workerDied", (BiFunction<DSLContext, Dispatch, Boolean>)
                    (ctx, d) -> transitions.workerDied(ctx, d)));

    static Stream<Arguments> everyTransitionFromEveryOtherStatus() {
        return TRANSITIONS.stream()
                .flatMap(t -> Stream.of(
                                OutboxDeliveryStatus.pending,
                                OutboxDeliveryStatus.completed,
                                OutboxDeliveryStatus.failed)
                        .map(s -> Arguments.of(t.get()[0], t.get()[1], s)));
    }

    @ParameterizedTest(name = "{0} from {2} changes nothing")
    @MethodSource("everyTransitionFromEveryOtherStatus")
    void changesNothingFromAnyStatusButDispatched(
            String name, BiFunction<DSLContext, Dispatch, Boolean> transition, OutboxDeliveryStatus status) {
        Dispatch d = insert(status);
        OutboxDeliveriesRecord before = row(d.deliveryId());

        assertThat(transition.apply(dsl, d)).isFalse();

        assertThat(row(d.deliveryId())).isEqualTo(before);
    }

    static Stream<Arguments> everyTransition() {
        return TRANSITIONS.stream();
    }

    @ParameterizedTest(name = "{0} with a stale dispatch id changes nothing")
    @MethodSource("everyTransition")
    void changesNothingForAStaleDispatch(String name, BiFunction<DSLContext, Dispatch, Boolean> transition) {
        Dispatch d = insert(OutboxDeliveryStatus.dispatched);
        OutboxDeliveriesRecord before = row(d.deliveryId());

        assertThat(transition.apply(dsl, new Dispatch(d.deliveryId(), UUID.randomUUID())))
                .isFalse();

        assertThat(row(d.deliveryId())).isEqualTo(before);
    }

    @Test
    void completesADispatchedDelivery() {
        Dispatch d = insert(OutboxDeliveryStatus.dispatched);
        Dispatch other = insert(OutboxDeliveryStatus.dispatched);

        assertThat(transitions.complete(dsl, List.of(d))).isEqualTo(Set.of(d.deliveryId()));

        OutboxDeliveriesRecord r = row(d.deliveryId());
        assertThat(r.getStatus()).isEqualTo(OutboxDeliveryStatus.completed);
        assertThat(r.getCompletedAt()).isEqualTo(NOW.atOffset(ZoneOffset.UTC));
        assertThat(r.getUpdatedAt()).isEqualTo(NOW.atOffset(ZoneOffset.UTC));
        assertThat(r.getDeliveryTimeoutAt()).isNull();
        assertThat(r.getDispatchId()).isEqualTo(d.dispatchId());
        assertThat(row(other.deliveryId()).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
    }

    @Test
    void completesAGroupMatchingEachDeliveryOnlyWithItsOwnDispatch() {
        Dispatch a = insert(OutboxDeliveryStatus.dispatched);
        Dispatch b = insert(OutboxDeliveryStatus.dispatched);
        Dispatch c = insert(OutboxDeliveryStatus.completed);

        // b is reported with a's dispatch id: dispatch ids are unique, so it must not match
        Set<UUID> done = transitions.complete(dsl, List.of(a, new Dispatch(b.deliveryId(), a.dispatchId()), c));

        assertThat(done).containsExactly(a.deliveryId());
        assertThat(row(b.deliveryId()).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
    }

    @Test
    void failsADispatchedDeliveryWithTheGivenReason() {
        Dispatch d = insert(OutboxDeliveryStatus.dispatched);

        assertThat(transitions.fail(dsl, d, FailureReason.UNDESERIALIZABLE_EVENT))
                .isTrue();

        OutboxDeliveriesRecord r = row(d.deliveryId());
        assertThat(r.getStatus()).isEqualTo(OutboxDeliveryStatus.failed);
        assertThat(r.getFailureReason()).isEqualTo("undeserializable_event");
        assertThat(r.getFailedAt()).isEqualTo(NOW.atOffset(ZoneOffset.UTC));
        assertThat(r.getDeliveryTimeoutAt()).isNull();
        assertThat(r.getAttempts()).isEqualTo(1);
    }

    @Test
    void marksADispatchedDeliveryWorkerDied() {
        Dispatch d = insert(OutboxDeliveryStatus.dispatched);

        assertThat(transitions.workerDied(dsl, d)).isTrue();

        assertThat(row(d.deliveryId()).getFailureReason()).isEqualTo("worker_died");
    }

    @Test
    void retriesADispatchedDeliveryAfterItsNextDelay() {
        Dispatch d = insert(OutboxDeliveryStatus.dispatched);

        assertThat(transitions.retryOrFail(dsl, d)).isPresent();

        OutboxDeliveriesRecord r = row(d.deliveryId());
        assertThat(r.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(r.getAvailableAt()).isEqualTo(NOW.plusSeconds(60).atOffset(ZoneOffset.UTC));
        assertThat(r.getDispatchedAt()).isNull();
        assertThat(r.getDeliveryTimeoutAt()).isNull();
    }
}
