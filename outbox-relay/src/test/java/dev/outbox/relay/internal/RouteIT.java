package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.delivery.internal.DeliveryRows;
import dev.outbox.delivery.internal.RelayTransitions;
import dev.outbox.relay.Events.InvoiceSent;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.enums.OutboxRouteKind;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** T1: events become one pending delivery per route, in one commit with routed_at. */
class RouteIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final Routes ROUTES = Routes.builder()
            .route(
                    "order.placed",
                    Route.job("send-confirmation", "emails", RetrySchedule.seconds(5, 30), Duration.ofSeconds(300)),
                    Route.publish(
                            "order-events",
                            "orders",
                            "order.placed",
                            RetrySchedule.seconds(10),
                            Duration.ofSeconds(60)))
            .route("order.cancelled", Route.job("refund", "payments", List.of(), Duration.ofSeconds(120)))
            .build();

    final MutableClock clock = MutableClock.startingNow();
    Tables tables;

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
        tables = new Tables(db);
    }

    private RelayTransitions.Routed route(Routes routes, int limit) {
        RelayTransitions transitions = new RelayTransitions(db.tables(), routes.toRouteTable(), clock);
        return tables.dsl().transactionResult(tx -> transitions.route(tx.dsl(), limit, null));
    }

    @Test
    void createsOnePendingDeliveryPerRouteWithTheRouteSnapshot() {
        UUID event = tables.record(new OrderPlaced(1, BigDecimal.TEN)).get(0);

        RelayTransitions.Routed routed = route(ROUTES, 500);

        assertThat(routed.events()).isEqualTo(1);
        assertThat(routed.deliveries()).isEqualTo(2);
        List<OutboxDeliveriesRecord> deliveries = tables.deliveriesOf(event);
        assertThat(deliveries).hasSize(2);
        OutboxDeliveriesRecord publish = deliveries.get(0);
        OutboxDeliveriesRecord job = deliveries.get(1);
        assertThat(job.getKind()).isEqualTo(OutboxRouteKind.job);
        assertThat(job.getJobType()).isEqualTo("send-confirmation");
        assertThat(job.getQueueName()).isEqualTo("emails");
        assertThat(job.getExchange()).isNull();
        assertThat(job.getRoutingKey()).isNull();
        assertThat(job.getRetryDelaysSeconds()).containsExactly(5, 30);
        assertThat(job.getDeliveryTimeoutSeconds()).isEqualTo(300);
        assertThat(job.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(job.getAttempts()).isZero();
        assertThat(job.getAvailableAt().toInstant()).isEqualTo(clock.instant());
        assertThat(job.getCreatedAt().toInstant()).isEqualTo(clock.instant());
        assertThat(job.getId().version()).isEqualTo(7);
        assertThat(publish.getKind()).isEqualTo(OutboxRouteKind.publish);
        assertThat(publish.getJobType()).isEqualTo("order-events");
        assertThat(publish.getQueueName()).isEqualTo("orders");
        assertThat(publish.getExchange()).isEqualTo("orders");
        assertThat(publish.getRoutingKey()).isEqualTo("order.placed");
        assertThat(publish.getRetryDelaysSeconds()).containsExactly(10);
        assertThat(tables.event(event).getRoutedAt()).isNotNull();
    }

    @Test
    void leavesAnEventWithoutRouteUnroutedWithNoDeliveryAndRoutesTheRestOfTheBatch() {
        List<UUID> ids =
                tables.record(new InvoiceSent(7), new OrderCancelled(1), new InvoiceSent(8), new OrderCancelled(2));

        RelayTransitions.Routed routed = route(ROUTES, 500);

        assertThat(routed.events()).isEqualTo(2);
        assertThat(routed.deliveries()).isEqualTo(2);
        assertThat(routed.unroutedTypes()).containsExactly("invoice.sent");
        assertThat(tables.deliveriesOf(ids.get(0))).isEmpty();
        assertThat(tables.deliveriesOf(ids.get(2))).isEmpty();
        assertThat(tables.event(ids.get(0)).getRoutedAt()).isNull();
        assertThat(tables.event(ids.get(2)).getRoutedAt()).isNull();
        assertThat(tables.deliveriesOf(ids.get(1))).hasSize(1);
        assertThat(tables.event(ids.get(3)).getRoutedAt()).isNotNull();
    }

    @Test
    void unroutableEventsAtTheHeadDoNotHoldBackLaterEvents() {
        tables.recordAll(List.of(new InvoiceSent(1), new InvoiceSent(2), new InvoiceSent(3)));
        UUID later = tables.record(new OrderCancelled(9)).get(0);
        RelayTransitions transitions = new RelayTransitions(db.tables(), ROUTES.toRouteTable(), clock);

        RelayTransitions.Routed first = tables.dsl().transactionResult(tx -> transitions.route(tx.dsl(), 2, null));
        RelayTransitions.Routed second =
                tables.dsl().transactionResult(tx -> transitions.route(tx.dsl(), 2, first.lastSeen()));

        assertThat(first.events()).isZero();
        assertThat(first.seen()).isEqualTo(2);
        assertThat(second.events()).isEqualTo(1);
        assertThat(tables.deliveriesOf(later)).hasSize(1);
    }

    @Test
    void aRouteAddedLaterRoutesOnlyUnroutedEventsAndLeavesRoutedOnesAlone() {
        UUID routedBefore = tables.record(new OrderCancelled(1)).get(0);
        route(ROUTES, 500);
        UUID waiting = tables.record(new InvoiceSent(5)).get(0);
        Routes more = Routes.builder()
                .route(
                        "order.cancelled",
                        Route.job("refund", "payments", List.of(), Duration.ofSeconds(120)),
                        Route.job("notify", "emails", List.of(), Duration.ofSeconds(60)))
                .route(
                        "invoice.sent",
                        Route.job("archive", "archive", RetrySchedule.seconds(1), Duration.ofSeconds(60)))
                .build();

        RelayTransitions.Routed routed = route(more, 500);

        assertThat(routed.events()).isEqualTo(1);
        assertThat(routed.deliveries()).isEqualTo(1);
        assertThat(tables.deliveriesOf(routedBefore))
                .extracting(OutboxDeliveriesRecord::getJobType)
                .containsExactly("refund");
        assertThat(tables.deliveriesOf(waiting))
                .extracting(OutboxDeliveriesRecord::getJobType)
                .containsExactly("archive");
    }

    @Test
    void aDeliveryThatExistsAlreadyIsStoppedByTheUniqueKey() {
        UUID event = tables.record(new OrderCancelled(3)).get(0);
        OffsetDateTime now = clock.instant().atOffset(ZoneOffset.UTC);
        UUID existing = DeliveryRows.delivery(OutboxDeliveryStatus.pending, now)
                .event(event)
                .jobType("refund")
                .queue("payments")
                .retryDelays(List.of())
                .timeoutSeconds(120)
                .availableAt(now)
                .createdAt(now)
                .insert(tables.dsl())
                .getId();

        RelayTransitions.Routed routed = route(ROUTES, 500);

        assertThat(routed.events()).isEqualTo(1);
        assertThat(routed.deliveries()).isZero();
        assertThat(tables.deliveriesOf(event))
                .extracting(OutboxDeliveriesRecord::getId)
                .containsExactly(existing);
        assertThat(tables.event(event).getRoutedAt()).isNotNull();
    }

    @Test
    void routesInBatchesOldestFirst() {
        List<UUID> ids = tables.recordAll(List.of(new OrderCancelled(1), new OrderCancelled(2), new OrderCancelled(3)));

        RelayTransitions.Routed first = route(ROUTES, 2);
        assertThat(first.events()).isEqualTo(2);
        assertThat(first.lastSeen()).isEqualTo(ids.get(1));

        assertThat(tables.event(ids.get(0)).getRoutedAt()).isNotNull();
        assertThat(tables.event(ids.get(1)).getRoutedAt()).isNotNull();
        assertThat(tables.event(ids.get(2)).getRoutedAt()).isNull();
    }
}
