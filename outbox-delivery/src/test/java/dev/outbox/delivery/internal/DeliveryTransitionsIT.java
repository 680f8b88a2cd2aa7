package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.api.OutboxDsl;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class DeliveryTransitionsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final OffsetDateTime NOW = OffsetDateTime.of(2030, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC);
    static final OffsetDateTime DISPATCHED_AT = NOW.minusSeconds(30);
    static final OffsetDateTime TIMEOUT_AT = NOW.minusSeconds(1);
    static final OffsetDateTime AVAILABLE_AT = NOW.minusSeconds(60);

    static DSLContext dsl;
    static DSLContext ctx;
    static DeliveryTransitions transitions;

    @BeforeAll
    static void setUp() {
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        ctx = OutboxDsl.mapped(dsl, db.tables());
        transitions = new DeliveryTransitions(db.tables(), Clock.fixed(NOW.toInstant(), ZoneOffset.UTC));
    }

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
    }

    /** A delivery dispatched for the {@code attempts}-th time, waiting for its result. */
    private static OutboxDeliveriesRecord dispatched(List<Integer> delays, int attempts) {
        // dispatched 30 s before now with a 29 s timeout: due a second ago
        return DeliveryRows.delivery(OutboxDeliveryStatus.dispatched, NOW)
                .retryDelays(delays)
                .attempts(attempts)
                .timeoutSeconds(29)
                .availableAt(AVAILABLE_AT)
                .dispatchedAt(DISPATCHED_AT)
                .deliveryTimeoutAt(TIMEOUT_AT)
                .insert(ctx);
    }

    private static OutboxDeliveriesRecord reload(UUID id) {
        return ctx.selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(id))
                .fetchSingle();
    }

    static Stream<Arguments> cases() {
        List<Integer> hundred = IntStream.rangeClosed(1, 100).boxed().toList();
        return Stream.of(
                // delays, attempts (the dispatch that failed), expected delay or null for failed
                Arguments.of(List.of(60, 120), 1, 60),
                Arguments.of(List.of(60, 120), 2, 120),
                Arguments.of(List.of(60, 120), 3, null),
                Arguments.of(List.of(), 1, null),
                Arguments.of(List.of(5), 1, 5),
                Arguments.of(List.of(5), 2, null),
                Arguments.of(List.of(86_400, 1), 1, 86_400),
                Arguments.of(List.of(Integer.MAX_VALUE), 1, Integer.MAX_VALUE),
                Arguments.of(hundred, 100, 100),
                Arguments.of(hundred, 101, null));
    }

    @ParameterizedTest(name = "delays {0}, attempt {1} fails -> {2}")
    @MethodSource("cases")
    void retriesWithTheNextDelayOfItsOwnSnapshotOrFailsWhenNoneIsLeft(
            List<Integer> delays, int attempts, Integer expectedDelay) {
        OutboxDeliveriesRecord before = dispatched(delays, attempts);

        Optional<RetryOutcome> outcome =
                transitions.retryOrFail(ctx, before.getId(), before.getDispatchId(), FailureReason.RETRIES_EXHAUSTED);

        OutboxDeliveriesRecord after = reload(before.getId());
        assertThat(outcome).isPresent();
        RetryOutcome o = outcome.get();
        assertThat(o.deliveryId()).isEqualTo(before.getId());
        assertThat(o.eventId()).isEqualTo(before.getEventId());
        assertThat(o.dispatchId()).isEqualTo(before.getDispatchId());
        assertThat(o.jobType()).isEqualTo("send-confirmation");
        assertThat(o.queue()).isEqualTo("emails");
        assertThat(o.attempts()).isEqualTo(attempts);
        assertThat(after.getAttempts()).isEqualTo(attempts);
        assertThat(after.getDispatchId()).isEqualTo(before.getDispatchId());
        assertThat(after.getUpdatedAt()).isEqualTo(NOW);
        assertThat(after.getDeliveryTimeoutAt()).isNull();
        assertThat(after.getCompletedAt()).isNull();
        assertThat(after.getRetryDelaysSeconds()).containsExactly(delays.toArray(Integer[]::new));
        if (expectedDelay != null) {
            assertThat(o.retried()).isTrue();
            assertThat(o.status()).isEqualTo(OutboxDeliveryStatus.pending);
            assertThat(after.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
            assertThat(after.getAvailableAt()).isEqualTo(NOW.plusSeconds(expectedDelay));
            assertThat(o.availableAt()).isEqualTo(NOW.plusSeconds(expectedDelay));
            assertThat(after.getDispatchedAt()).isNull();
            assertThat(after.getFailedAt()).isNull();
            assertThat(after.getFailureReason()).isNull();
            assertThat(o.failureReason()).isNull();
        } else {
            assertThat(o.retried()).isFalse();
            assertThat(o.status()).isEqualTo(OutboxDeliveryStatus.failed);
            assertThat(after.getStatus()).isEqualTo(OutboxDeliveryStatus.failed);
            assertThat(after.getAvailableAt()).isEqualTo(AVAILABLE_AT);
            assertThat(after.getDispatchedAt()).isEqualTo(DISPATCHED_AT);
            assertThat(after.getFailedAt()).isEqualTo(NOW);
            assertThat(after.getFailureReason()).isEqualTo("retries_exhausted");
            assertThat(o.failureReason()).isEqualTo(FailureReason.RETRIES_EXHAUSTED);
        }
    }

    @ParameterizedTest(name = "delays {0}, attempt {1}")
    @MethodSource("cases")
    void agreesWithTheJavaRetryPolicyAndItsLastAttempt(List<Integer> delays, int attempts, Integer expectedDelay) {
        OutboxDeliveriesRecord before = dispatched(delays, attempts);

        RetryOutcome o = transitions
                .retryOrFail(ctx, before.getId(), before.getDispatchId(), FailureReason.TIMEOUT)
                .orElseThrow();

        OptionalInt javaDelay = RetryPolicy.nextDelaySeconds(attempts, delays);
        assertThat(javaDelay.isPresent()).isEqualTo(o.retried());
        if (javaDelay.isPresent()) {
            assertThat(o.availableAt()).isEqualTo(NOW.plusSeconds(javaDelay.getAsInt()));
        }
        // the dispatch told the job it was the last attempt exactly when its failure is final
        assertThat(RetryPolicy.lastAttempt(attempts, delays.size())).isEqualTo(!o.retried());
        assertThat(o.failureReason()).isEqualTo(o.retried() ? null : FailureReason.TIMEOUT);
    }

    @Test
    void changesNothingForAnotherDispatchId() {
        OutboxDeliveriesRecord before = dispatched(List.of(60, 120), 1);

        Optional<RetryOutcome> outcome =
                transitions.retryOrFail(ctx, before.getId(), UUID.randomUUID(), FailureReason.RETRIES_EXHAUSTED);

        assertThat(outcome).isEmpty();
        assertThat(reload(before.getId())).isEqualTo(before);
    }

    @Test
    void changesNothingForAnUnknownDelivery() {
        OutboxDeliveriesRecord before = dispatched(List.of(), 1);

        assertThat(transitions.retryOrFail(
                        ctx, UUID.randomUUID(), before.getDispatchId(), FailureReason.RETRIES_EXHAUSTED))
                .isEmpty();
        assertThat(reload(before.getId())).isEqualTo(before);
    }

    @Test
    void changesNothingForAPendingDelivery() {
        OutboxDeliveriesRecord pending = dispatched(List.of(60), 1);
        ctx.update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.pending)
                .setNull(OUTBOX_DELIVERIES.DISPATCHED_AT)
                .setNull(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT)
                .where(OUTBOX_DELIVERIES.ID.eq(pending.getId()))
                .execute();
        OutboxDeliveriesRecord before = reload(pending.getId());

        assertThat(transitions.retryOrFail(
                        ctx, before.getId(), before.getDispatchId(), FailureReason.RETRIES_EXHAUSTED))
                .isEmpty();
        assertThat(reload(before.getId())).isEqualTo(before);
    }

    @Test
    void changesNothingForACompletedDelivery() {
        OutboxDeliveriesRecord done = dispatched(List.of(60), 1);
        ctx.update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.completed)
                .set(OUTBOX_DELIVERIES.COMPLETED_AT, NOW.minusSeconds(2))
                .setNull(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT)
                .where(OUTBOX_DELIVERIES.ID.eq(done.getId()))
                .execute();
        OutboxDeliveriesRecord before = reload(done.getId());

        assertThat(transitions.retryOrFail(
                        ctx, before.getId(), before.getDispatchId(), FailureReason.RETRIES_EXHAUSTED))
                .isEmpty();
        assertThat(reload(before.getId())).isEqualTo(before);
    }

    @Test
    void changesNothingForAFailedDelivery() {
        OutboxDeliveriesRecord failed = dispatched(List.of(60), 1);
        assertThat(transitions.retryOrFail(ctx, failed.getId(), failed.getDispatchId(), FailureReason.JOB_FAILED))
                .isPresent();
        OutboxDeliveriesRecord retried = reload(failed.getId());
        ctx.update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.failed)
                .set(OUTBOX_DELIVERIES.FAILED_AT, NOW)
                .set(OUTBOX_DELIVERIES.FAILURE_REASON, "job_failed")
                .where(OUTBOX_DELIVERIES.ID.eq(retried.getId()))
                .execute();
        OutboxDeliveriesRecord before = reload(failed.getId());

        assertThat(transitions.retryOrFail(
                        ctx, before.getId(), before.getDispatchId(), FailureReason.RETRIES_EXHAUSTED))
                .isEmpty();
        assertThat(reload(before.getId())).isEqualTo(before);
    }

    @Test
    void aSecondRetryOrFailOfTheSameDispatchFindsNothing() {
        OutboxDeliveriesRecord d = dispatched(List.of(60), 1);
        assertThat(transitions.retryOrFail(ctx, d.getId(), d.getDispatchId(), FailureReason.TIMEOUT))
                .isPresent();
        OutboxDeliveriesRecord after = reload(d.getId());

        assertThat(transitions.retryOrFail(ctx, d.getId(), d.getDispatchId(), FailureReason.TIMEOUT))
                .isEmpty();
        assertThat(reload(d.getId())).isEqualTo(after);
    }

    @Test
    void decidesForEveryMatchingDeliveryInOneStatement() {
        OutboxDeliveriesRecord retry = dispatched(List.of(60, 120), 2);
        OutboxDeliveriesRecord fail = dispatched(List.of(), 1);
        OutboxDeliveriesRecord other = dispatched(List.of(60), 1);

        List<RetryOutcome> outcomes = transitions.retryOrFail(
                ctx,
                OUTBOX_DELIVERIES
                        .ID
                        .in(retry.getId(), fail.getId(), other.getId())
                        .and(OUTBOX_DELIVERIES.DISPATCH_ID.in(
                                retry.getDispatchId(), fail.getDispatchId(), UUID.randomUUID())),
                FailureReason.TIMEOUT);

        assertThat(outcomes)
                .extracting(RetryOutcome::deliveryId)
                .containsExactlyInAnyOrder(retry.getId(), fail.getId());
        assertThat(reload(retry.getId()).getAvailableAt()).isEqualTo(NOW.plusSeconds(120));
        assertThat(reload(fail.getId()).getFailureReason()).isEqualTo("timeout");
        assertThat(reload(other.getId())).isEqualTo(other);
    }

    @ParameterizedTest
    @EnumSource(FailureReason.class)
    void writesEveryFailureReasonAsTheSafeCodeTheSchemaAdmits(FailureReason reason) {
        // a failure reason is an enum now: an external message cannot be passed at all; each code is
        // one the schema's CHECK (^[a-z][a-z0-9_]{0,63}$) admits
        OutboxDeliveriesRecord d = dispatched(List.of(), 1);
        RetryOutcome o = transitions
                .retryOrFail(ctx, d.getId(), d.getDispatchId(), reason)
                .orElseThrow();
        assertThat(o.failureReason()).isEqualTo(reason);
        assertThat(reload(d.getId()).getFailureReason())
                .isEqualTo(reason.code())
                .matches("[a-z][a-z0-9_]{0,63}");
    }

    @Test
    void theSchemaRefusesAFailureReasonThatIsNotASafeCode() {
        OutboxDeliveriesRecord d = dispatched(List.of(), 1);
        java.util.function.Function<String, Integer> failWith = reason -> ctx.update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.failed)
                .set(OUTBOX_DELIVERIES.FAILED_AT, d.getUpdatedAt())
                .setNull(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT)
                .set(OUTBOX_DELIVERIES.FAILURE_REASON, reason)
                .where(OUTBOX_DELIVERIES.ID.eq(d.getId()))
                .execute();
        assertThatThrownBy(() -> failWith.apply("Connection refused: 10.0.0.1"))
                .isInstanceOf(org.jooq.exception.DataAccessException.class)
                .hasMessageContaining("failure_reason_check");
        assertThat(reload(d.getId())).isEqualTo(d);
        assertThat(failWith.apply(FailureReason.JOB_FAILED.code()))
                .isEqualTo(1); // the same row with a code is admitted
    }

    @Test
    void addsALongDelayAsExactSecondsWithoutCalendarRounding() {
        OutboxDeliveriesRecord d = dispatched(List.of(3_600 * 24 * 400), 1);

        RetryOutcome o = transitions
                .retryOrFail(ctx, d.getId(), d.getDispatchId(), FailureReason.TIMEOUT)
                .orElseThrow();

        assertThat(o.availableAt().toInstant()).isEqualTo(NOW.toInstant().plusSeconds(3_600L * 24 * 400));
    }
}
