package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.delivery.internal.Claimed;
import dev.outbox.delivery.internal.RelayTransitions;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** T3u release unsent: only a dispatched delivery of the same dispatch goes back to pending, its attempt not counted. */
class ReleaseUnsentIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    final MutableClock clock = MutableClock.startingNow();
    final RelayTransitions transitions = new RelayTransitions(
            db.tables(),
            Routes.builder()
                    .route("order.cancelled", Route.job("refund", "refunds", List.of(), Duration.ofSeconds(120)))
                    .build()
                    .toRouteTable(),
            clock);
    Tables tables;

    @BeforeEach
    void setUp() throws Exception {
        db.truncate();
        tables = new Tables(db);
    }

    private Claimed claimOne() {
        tables.record(new OrderCancelled(1));
        tables.dsl().transaction(tx -> transitions.route(tx.dsl(), 10, null));
        List<Claimed> claimed = tables.dsl().transactionResult(tx -> transitions.claim(tx.dsl(), 10));
        assertThat(claimed).hasSize(1);
        return claimed.get(0);
    }

    private List<UUID> release(UUID deliveryId, UUID dispatchId) {
        return tables.dsl()
                .transactionResult(
                        tx -> transitions.releaseUnsent(tx.dsl(), new UUID[] {deliveryId}, new UUID[] {dispatchId}));
    }

    @Test
    void releasesADispatchedDeliveryOfTheSameDispatchToPendingWithoutCountingTheAttempt() {
        Claimed d = claimOne();
        OutboxDeliveriesRecord before = tables.delivery(d.eventId());

        assertThat(release(d.deliveryId(), d.dispatchId())).containsExactly(d.deliveryId());

        OutboxDeliveriesRecord after = tables.delivery(d.eventId());
        assertThat(after.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(after.getAttempts()).isZero();
        assertThat(after.getAvailableAt()).isEqualTo(before.getAvailableAt());
        assertThat(after.getDispatchedAt()).isNull();
        assertThat(after.getDeliveryTimeoutAt()).isNull();
        assertThat(after.getFailureReason()).isNull();
    }

    @Test
    void changesNothingForAnotherDispatch() {
        Claimed d = claimOne();

        assertThat(release(d.deliveryId(), UUID.randomUUID())).isEmpty();

        assertThat(tables.delivery(d.eventId()).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
    }

    @Test
    void changesNothingOnceTheDeliveryLeftDispatched() {
        Claimed d = claimOne();
        assertThat(release(d.deliveryId(), d.dispatchId())).hasSize(1);

        assertThat(release(d.deliveryId(), d.dispatchId())).isEmpty(); // pending now

        Claimed again = tables.dsl()
                .transactionResult(tx -> transitions.claim(tx.dsl(), 10))
                .get(0);
        tables.dsl()
                .transaction(tx -> transitions.publishRefused(
                        tx.dsl(), new UUID[] {again.deliveryId()}, new UUID[] {again.dispatchId()}));
        assertThat(tables.delivery(d.eventId()).getStatus()).isEqualTo(OutboxDeliveryStatus.failed);

        assertThat(release(again.deliveryId(), again.dispatchId())).isEmpty();
        assertThat(tables.delivery(d.eventId()).getStatus()).isEqualTo(OutboxDeliveryStatus.failed);
    }
}
