package dev.outbox.schema;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.enums.OutboxRouteKind;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every CHECK of the migrations rejects the impossible row it is for; the unique key rejects a duplicate. */
class ConstraintsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final OffsetDateTime T0 = OffsetDateTime.of(2026, 1, 1, 12, 0, 0, 0, ZoneOffset.UTC);
    static DSLContext ctx;

    @BeforeAll
    static void context() {
        ctx = DSL.using(db.dataSource(), SQLDialect.POSTGRES, OutboxRenderMapping.settings(db.tables()));
    }

    static UUID event() {
        UUID id = UUID.randomUUID();
        ctx.insertInto(OUTBOX_EVENTS)
                .set(OUTBOX_EVENTS.ID, id)
                .set(OUTBOX_EVENTS.EVENT_TYPE, "order.placed")
                .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{}"))
                .set(OUTBOX_EVENTS.CREATED_AT, T0)
                .execute();
        return id;
    }

    static OutboxDeliveriesRecord pending() {
        OutboxDeliveriesRecord r = ctx.newRecord(OUTBOX_DELIVERIES);
        r.setId(UUID.randomUUID());
        r.setEventId(event());
        r.setKind(OutboxRouteKind.job);
        r.setJobType("send-email");
        r.setQueueName("emails");
        r.setRetryDelaysSeconds(new Integer[] {60, 120});
        r.setDeliveryTimeoutSeconds(300);
        r.setStatus(OutboxDeliveryStatus.pending);
        r.setAttempts(0);
        r.setAvailableAt(T0);
        r.setCreatedAt(T0);
        r.setUpdatedAt(T0);
        return r;
    }

    static OutboxDeliveriesRecord dispatched() {
        return pending()
                .setStatus(OutboxDeliveryStatus.dispatched)
                .setAttempts(1)
                .setDispatchId(UUID.randomUUID())
                .setDispatchedAt(T0)
                .setDeliveryTimeoutAt(T0.plusMinutes(5));
    }

    static OutboxDeliveriesRecord completed() {
        return pending()
                .setStatus(OutboxDeliveryStatus.completed)
                .setAttempts(1)
                .setDispatchId(UUID.randomUUID())
                .setDispatchedAt(T0)
                .setCompletedAt(T0.plusSeconds(1));
    }

    static OutboxDeliveriesRecord failed() {
        return pending()
                .setStatus(OutboxDeliveryStatus.failed)
                .setAttempts(1)
                .setDispatchId(UUID.randomUUID())
                .setDispatchedAt(T0)
                .setFailedAt(T0.plusSeconds(1))
                .setFailureReason("job_failed");
    }

    static OutboxDeliveriesRecord publish() {
        return pending().setKind(OutboxRouteKind.publish).setExchange("orders").setRoutingKey("order.placed");
    }

    @Test
    void acceptsAValidRowOfEveryStatusAndKind() {
        for (OutboxDeliveriesRecord r : new OutboxDeliveriesRecord[] {
            pending(),
            dispatched(),
            completed(),
            failed(),
            publish(),
            dispatched().setStartedAt(T0.plusSeconds(1)),
            failed().setStartedAt(T0).setUnstartedTimeouts(3)
        }) {
            assertThat(ctx.executeInsert(r)).isEqualTo(1);
        }
    }

    static java.util.stream.Stream<Arguments> impossibleRows() {
        return java.util.stream.Stream.of(
                row("retry_delays_check", "a zero delay", d -> d.setRetryDelaysSeconds(new Integer[] {60, 0})),
                row("retry_delays_check", "a negative delay", d -> d.setRetryDelaysSeconds(new Integer[] {-5})),
                row("retry_delays_check", "a null delay", d -> d.setRetryDelaysSeconds(new Integer[] {60, null})),
                row("timeout_check", "a zero timeout", d -> d.setDeliveryTimeoutSeconds(0)),
                row("timeout_check", "a negative timeout", d -> d.setDeliveryTimeoutSeconds(-1)),
                row("attempts_check", "negative attempts", d -> d.setAttempts(-1)),
                row("attempts_check", "more attempts than the delays allow", d -> d.setAttempts(4)),
                row("job_type_check", "an empty job type", d -> d.setJobType("")),
                row("queue_name_check", "an empty queue", d -> d.setQueueName("")),
                row("kind_check", "a job route with an exchange", d -> d.setExchange("x")),
                row(
                        "kind_check",
                        "a publish route without an exchange",
                        d -> d.setKind(OutboxRouteKind.publish).setRoutingKey("k")),
                row(
                        "failure_reason_check",
                        "a free-text failure reason",
                        d -> d.setStatus(OutboxDeliveryStatus.failed)
                                .setFailedAt(T0)
                                .setAttempts(1)
                                .setFailureReason("Connection refused: db.example.com")),
                row("pending_check", "pending with a timeout", d -> d.setDeliveryTimeoutAt(T0)),
                row("pending_check", "pending with completed_at", d -> d.setCompletedAt(T0)),
                row("pending_check", "pending with a failure reason", d -> d.setFailureReason("timeout")),
                row(
                        "dispatched_check",
                        "dispatched without a dispatch id",
                        d -> d.setStatus(OutboxDeliveryStatus.dispatched)
                                .setAttempts(1)
                                .setDispatchedAt(T0)
                                .setDeliveryTimeoutAt(T0.plusMinutes(1))),
                row(
                        "dispatched_check",
                        "dispatched without a timeout",
                        d -> d.setStatus(OutboxDeliveryStatus.dispatched)
                                .setAttempts(1)
                                .setDispatchId(UUID.randomUUID())
                                .setDispatchedAt(T0)),
                row(
                        "dispatched_check",
                        "dispatched with zero attempts",
                        d -> d.setStatus(OutboxDeliveryStatus.dispatched)
                                .setDispatchId(UUID.randomUUID())
                                .setDispatchedAt(T0)
                                .setDeliveryTimeoutAt(T0.plusMinutes(1))),
                row(
                        "dispatched_check",
                        "dispatched with a timeout before dispatch",
                        d -> d.setStatus(OutboxDeliveryStatus.dispatched)
                                .setAttempts(1)
                                .setDispatchId(UUID.randomUUID())
                                .setDispatchedAt(T0)
                                .setDeliveryTimeoutAt(T0.minusSeconds(1))),
                row(
                        "completed_check",
                        "completed without completed_at",
                        d -> d.setStatus(OutboxDeliveryStatus.completed)
                                .setAttempts(1)
                                .setDispatchId(UUID.randomUUID())),
                row(
                        "completed_check",
                        "completed and failed",
                        d -> d.setStatus(OutboxDeliveryStatus.completed)
                                .setAttempts(1)
                                .setDispatchId(UUID.randomUUID())
                                .setCompletedAt(T0)
                                .setFailedAt(T0)),
                row(
                        "failed_check",
                        "failed without a reason",
                        d -> d.setStatus(OutboxDeliveryStatus.failed).setFailedAt(T0)),
                row(
                        "failed_check",
                        "failed without failed_at",
                        d -> d.setStatus(OutboxDeliveryStatus.failed).setFailureReason("timeout")),
                row("started_check", "pending and started", d -> d.setStartedAt(T0)),
                row(
                        "started_check",
                        "started before its dispatch",
                        d -> d.setStatus(OutboxDeliveryStatus.dispatched)
                                .setAttempts(1)
                                .setDispatchId(UUID.randomUUID())
                                .setDispatchedAt(T0)
                                .setDeliveryTimeoutAt(T0.plusMinutes(1))
                                .setStartedAt(T0.minusSeconds(1))),
                row("unstarted_timeouts_check", "negative unstarted timeouts", d -> d.setUnstartedTimeouts(-1)));
    }

    static Arguments row(String constraint, String what, Consumer<OutboxDeliveriesRecord> change) {
        return Arguments.of(constraint, what, change);
    }

    @ParameterizedTest(name = "{1} is refused by {0}")
    @MethodSource("impossibleRows")
    void refusesAnImpossibleDelivery(String constraint, String what, Consumer<OutboxDeliveriesRecord> change) {
        OutboxDeliveriesRecord r = pending();
        change.accept(r);
        assertThatThrownBy(() -> ctx.executeInsert(r))
                .isInstanceOf(DataAccessException.class)
                .hasMessageContaining("outbox_deliveries_" + constraint);
    }

    @Test
    void refusesASecondDeliveryOfTheSameRoute() {
        OutboxDeliveriesRecord first = pending();
        ctx.executeInsert(first);
        OutboxDeliveriesRecord duplicate =
                pending().setEventId(first.getEventId()).setId(UUID.randomUUID());
        assertThatThrownBy(() -> ctx.executeInsert(duplicate))
                .isInstanceOf(DataAccessException.class)
                .hasMessageContaining("outbox_deliveries_route_key");
    }

    @Test
    void refusesADeliveryOfAnUnknownEvent() {
        OutboxDeliveriesRecord orphan = pending().setEventId(UUID.randomUUID());
        assertThatThrownBy(() -> ctx.executeInsert(orphan))
                .isInstanceOf(DataAccessException.class)
                .hasMessageContaining("outbox_deliveries_event_fkey");
    }

    @Test
    void refusesAnEventWithABadTypeOrTraceparent() {
        assertThatThrownBy(() -> ctx.insertInto(OUTBOX_EVENTS)
                        .set(OUTBOX_EVENTS.ID, UUID.randomUUID())
                        .set(OUTBOX_EVENTS.EVENT_TYPE, "")
                        .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{}"))
                        .set(OUTBOX_EVENTS.CREATED_AT, T0)
                        .execute())
                .hasMessageContaining("outbox_events_event_type_check");
        assertThatThrownBy(() -> ctx.insertInto(OUTBOX_EVENTS)
                        .set(OUTBOX_EVENTS.ID, UUID.randomUUID())
                        .set(OUTBOX_EVENTS.EVENT_TYPE, "a")
                        .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{}"))
                        .set(OUTBOX_EVENTS.TRACEPARENT, "not-a-traceparent")
                        .set(OUTBOX_EVENTS.CREATED_AT, T0)
                        .execute())
                .hasMessageContaining("outbox_events_traceparent_check");
        assertThatThrownBy(() -> ctx.insertInto(OUTBOX_EVENTS)
                        .set(OUTBOX_EVENTS.ID, UUID.randomUUID())
                        .set(OUTBOX_EVENTS.EVENT_TYPE, "a")
                        .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{}"))
                        .set(OUTBOX_EVENTS.CREATED_AT, T0)
                        .set(OUTBOX_EVENTS.ROUTED_AT, T0.minusSeconds(1))
                        .execute())
                .hasMessageContaining("outbox_events_routed_at_check");
    }
}
