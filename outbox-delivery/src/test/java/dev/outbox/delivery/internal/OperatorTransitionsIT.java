package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.OutboxDsl;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Conformance of the operator's transitions: T9 requeue from every status (only failed changes, and
 * every column it sets), the removal of failed deliveries with the events they leave empty, and each
 * T10 purge touching exactly the rows its predicate names, its count equal to what it deletes.
 */
class OperatorTransitionsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    static final OffsetDateTime OLD = NOW.minusSeconds(86_400 * 10).atOffset(ZoneOffset.UTC);
    static final OffsetDateTime RECENT = NOW.minusSeconds(60).atOffset(ZoneOffset.UTC);
    static final OffsetDateTime CUTOFF = NOW.minusSeconds(86_400).atOffset(ZoneOffset.UTC);

    static DSLContext dsl;
    static DSLContext mapped;
    static OperatorTransitions transitions;

    @BeforeAll
    static void setUp() {
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        mapped = OutboxDsl.mapped(dsl, db.tables());
        transitions = new OperatorTransitions(db.tables(), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    @BeforeEach
    void empty() throws SQLException {
        db.truncate();
    }

    static UUID event(@Nullable OffsetDateTime routedAt, OffsetDateTime createdAt) {
        UUID id = UUID.randomUUID();
        mapped.insertInto(OUTBOX_EVENTS)
                .set(OUTBOX_EVENTS.ID, id)
                .set(OUTBOX_EVENTS.EVENT_TYPE, "order.placed")
                .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{}"))
                .set(OUTBOX_EVENTS.CREATED_AT, createdAt)
                .set(OUTBOX_EVENTS.ROUTED_AT, routedAt)
                .execute();
        return id;
    }

    /** A delivery of {@code eventId} in {@code status}, its final timestamp (or dispatch) at {@code at}. */
    static UUID delivery(UUID eventId, OutboxDeliveryStatus status, OffsetDateTime at) {
        UUID id = UUID.randomUUID();
        OutboxDeliveriesRecord r = mapped.newRecord(OUTBOX_DELIVERIES);
        r.setId(id);
        r.setEventId(eventId);
        r.setJobType("send-confirmation-" + id);
        r.setQueueName("emails");
        r.setRetryDelaysSeconds(new Integer[] {60});
        r.setDeliveryTimeoutSeconds(300);
        r.setStatus(status);
        r.setAttempts(status == OutboxDeliveryStatus.pending ? 0 : 2);
        r.setDispatchId(status == OutboxDeliveryStatus.pending ? null : UUID.randomUUID());
        r.setAvailableAt(OLD.minusSeconds(1));
        r.setCreatedAt(OLD.minusSeconds(1));
        r.setUpdatedAt(at);
        switch (status) {
            case pending -> {}
            case dispatched -> {
                r.setDispatchedAt(at);
                r.setDeliveryTimeoutAt(at.plusSeconds(300));
            }
            case completed -> {
                r.setDispatchedAt(at);
                r.setCompletedAt(at);
            }
            case failed -> {
                r.setDispatchedAt(at);
                r.setFailedAt(at);
                r.setFailureReason("job_failed");
            }
        }
        r.store();
        return id;
    }

    static UUID delivery(OutboxDeliveryStatus status, OffsetDateTime at) {
        return delivery(event(OLD, OLD.minusSeconds(2)), status, at);
    }

    static @Nullable OutboxDeliveriesRecord row(UUID id) {
        return mapped.selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(id))
                .fetchOne();
    }

    static boolean eventExists(UUID id) {
        return mapped.fetchExists(OUTBOX_EVENTS, OUTBOX_EVENTS.ID.eq(id));
    }

    @Test
    void requeuesAFailedDeliveryAsNew() {
        UUID id = delivery(OutboxDeliveryStatus.failed, OLD);

        assertThat(transitions.requeue(dsl, List.of(id))).containsExactly(id);

        OutboxDeliveriesRecord r = row(id);
        assertThat(r).isNotNull();
        assertThat(r.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(r.getAttempts()).isZero();
        assertThat(r.getAvailableAt()).isEqualTo(NOW.atOffset(ZoneOffset.UTC));
        assertThat(r.getUpdatedAt()).isEqualTo(NOW.atOffset(ZoneOffset.UTC));
        assertThat(r.getFailedAt()).isNull();
        assertThat(r.getFailureReason()).isNull();
        assertThat(r.getDispatchId()).isNull();
        assertThat(r.getDispatchedAt()).isNull();
        assertThat(r.getDeliveryTimeoutAt()).isNull();
    }

    @ParameterizedTest(name = "requeue from {0} changes nothing")
    @EnumSource(
            value = OutboxDeliveryStatus.class,
            names = {"pending", "dispatched", "completed"})
    void requeueChangesNothingButAFailedDelivery(OutboxDeliveryStatus status) {
        UUID id = delivery(status, OLD);
        OutboxDeliveriesRecord before = row(id);

        assertThat(transitions.requeue(dsl, List.of(id, UUID.randomUUID()))).isEmpty();

        assertThat(row(id)).isEqualTo(before);
    }

    @Test
    void requeuesOnlyTheFailedOnesOfAGroup() {
        UUID failed = delivery(OutboxDeliveryStatus.failed, OLD);
        UUID completed = delivery(OutboxDeliveryStatus.completed, OLD);
        UUID otherFailed = delivery(OutboxDeliveryStatus.failed, OLD);

        assertThat(transitions.requeue(dsl, List.of(failed, completed))).isEqualTo(Set.of(failed));
        assertThat(row(otherFailed).getStatus()).isEqualTo(OutboxDeliveryStatus.failed);
    }

    @Test
    void removesFailedDeliveriesAndTheEventsLeftWithoutAny() {
        UUID lonely = event(OLD, OLD);
        UUID alone = delivery(lonely, OutboxDeliveryStatus.failed, OLD);
        UUID shared = event(OLD, OLD);
        UUID failedOfShared = delivery(shared, OutboxDeliveryStatus.failed, OLD);
        UUID pendingOfShared = delivery(shared, OutboxDeliveryStatus.pending, OLD);
        List<UUID> ids = List.of(alone, failedOfShared, pendingOfShared);
        int expectedEvents = transitions.countEventsLeftByRemoval(dsl, ids);

        OperatorTransitions.Removed removed = transitions.removeFailed(dsl, ids);

        assertThat(removed.deliveries()).isEqualTo(Set.of(alone, failedOfShared));
        assertThat(removed.events()).isEqualTo(1).isEqualTo(expectedEvents);
        assertThat(eventExists(lonely)).isFalse();
        assertThat(eventExists(shared)).isTrue();
        assertThat(row(pendingOfShared)).isNotNull();
    }

    @ParameterizedTest(name = "removal of a {0} delivery changes nothing")
    @EnumSource(
            value = OutboxDeliveryStatus.class,
            names = {"pending", "dispatched", "completed"})
    void removalChangesNothingButAFailedDelivery(OutboxDeliveryStatus status) {
        UUID id = delivery(status, OLD);

        assertThat(transitions.removeFailed(dsl, List.of(id))).isEqualTo(new OperatorTransitions.Removed(Set.of(), 0));
        assertThat(row(id)).isNotNull();
    }

    @Test
    void purgesCompletedDeliveriesOlderThanTheCutoffOnly() {
        UUID oldCompleted = delivery(OutboxDeliveryStatus.completed, OLD);
        UUID recentCompleted = delivery(OutboxDeliveryStatus.completed, RECENT);
        List<UUID> others = List.of(
                delivery(OutboxDeliveryStatus.failed, OLD),
                delivery(OutboxDeliveryStatus.pending, OLD),
                delivery(OutboxDeliveryStatus.dispatched, OLD));
        assertThat(transitions.countCompleted(dsl, CUTOFF)).isEqualTo(1);

        assertThat(transitions.purgeCompleted(dsl, CUTOFF, 1000)).isEqualTo(1);

        assertThat(row(oldCompleted)).isNull();
        assertThat(row(recentCompleted)).isNotNull();
        others.forEach(id -> assertThat(row(id)).isNotNull());
    }

    @Test
    void purgesFailedDeliveriesOlderThanTheCutoffOnly() {
        UUID oldFailed = delivery(OutboxDeliveryStatus.failed, OLD);
        UUID recentFailed = delivery(OutboxDeliveryStatus.failed, RECENT);
        UUID oldCompleted = delivery(OutboxDeliveryStatus.completed, OLD);
        assertThat(transitions.countFailed(dsl, CUTOFF)).isEqualTo(1);

        assertThat(transitions.purgeFailed(dsl, CUTOFF, 1000)).isEqualTo(1);

        assertThat(row(oldFailed)).isNull();
        assertThat(row(recentFailed)).isNotNull();
        assertThat(row(oldCompleted)).isNotNull();
    }

    @Test
    void purgesInBatchesOfTheLimitOldestFirst() {
        UUID oldest = delivery(OutboxDeliveryStatus.completed, OLD.minusSeconds(10));
        UUID middle = delivery(OutboxDeliveryStatus.completed, OLD.minusSeconds(5));
        UUID newest = delivery(OutboxDeliveryStatus.completed, OLD);

        assertThat(transitions.purgeCompleted(dsl, CUTOFF, 2)).isEqualTo(2);

        assertThat(row(oldest)).isNull();
        assertThat(row(middle)).isNull();
        assertThat(row(newest)).isNotNull();
        assertThat(transitions.purgeCompleted(dsl, CUTOFF, 2)).isEqualTo(1);
        assertThat(transitions.purgeCompleted(dsl, CUTOFF, 2)).isZero();
    }

    @Test
    void sweepsRoutedEventsWithNoDeliveryLeftAndNothingElse() {
        UUID finished = event(OLD, OLD);
        UUID unrouted = event(null, OLD);
        UUID live = event(OLD, OLD);
        delivery(live, OutboxDeliveryStatus.pending, OLD);
        UUID done = event(OLD, OLD);
        delivery(done, OutboxDeliveryStatus.completed, OLD);
        assertThat(transitions.countFinishedEvents(dsl, null, null)).isEqualTo(1);
        assertThat(transitions.countFinishedEvents(dsl, CUTOFF, null))
                .as("once its completed delivery is purged")
                .isEqualTo(2);

        OperatorTransitions.Swept swept = transitions.purgeFinishedEvents(dsl, null, 1000);

        assertThat(swept.deleted()).isEqualTo(1);
        assertThat(swept.last()).isEqualTo(finished);
        assertThat(eventExists(finished)).isFalse();
        assertThat(eventExists(unrouted)).isTrue();
        assertThat(eventExists(live)).isTrue();
        assertThat(eventExists(done)).isTrue();
    }

    @Test
    void sweepsEventsInIdOrderFromTheCursor() {
        List<UUID> ids = List.of(event(OLD, OLD), event(OLD, OLD), event(OLD, OLD)).stream()
                .sorted(OperatorTransitions::compareAsPostgres)
                .toList();

        OperatorTransitions.Swept first = transitions.purgeFinishedEvents(dsl, null, 2);
        OperatorTransitions.Swept second = transitions.purgeFinishedEvents(dsl, first.last(), 2);

        assertThat(first).isEqualTo(new OperatorTransitions.Swept(2, ids.get(1)));
        assertThat(second).isEqualTo(new OperatorTransitions.Swept(1, ids.get(2)));
        assertThat(transitions.purgeFinishedEvents(dsl, second.last(), 2))
                .isEqualTo(new OperatorTransitions.Swept(0, null));
    }

    @Test
    void purgesUnroutedEventsOlderThanTheCutoffOnly() {
        UUID oldUnrouted = event(null, OLD);
        UUID recentUnrouted = event(null, RECENT);
        UUID routed = event(OLD, OLD);
        assertThat(transitions.countUnrouted(dsl, CUTOFF)).isEqualTo(1);

        assertThat(transitions.purgeUnrouted(dsl, CUTOFF, 1000)).isEqualTo(1);

        assertThat(eventExists(oldUnrouted)).isFalse();
        assertThat(eventExists(recentUnrouted)).isTrue();
        assertThat(eventExists(routed)).isTrue();
    }

    @Test
    void comparesUuidsAsPostgresOrdersThem() {
        UUID low = UUID.fromString("00000000-0000-0000-0000-000000000001");
        UUID high = UUID.fromString("ffffffff-0000-0000-0000-000000000000");
        Boolean lowerInPostgres = mapped.select(DSL.field(DSL.val(low).lt(DSL.val(high))))
                .fetchSingle()
                .value1();

        assertThat(lowerInPostgres).isTrue();
        assertThat(OperatorTransitions.compareAsPostgres(low, high)).isNegative();
        assertThat(low.compareTo(high)).as("Java's own order differs").isPositive();
    }
}
