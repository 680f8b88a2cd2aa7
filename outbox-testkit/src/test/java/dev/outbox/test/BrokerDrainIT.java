package dev.outbox.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.api.Outbox;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.OutboxWorker;
import dev.outbox.worker.RetryableOutboxException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The kit's broker mode: the real relay's passes and a real worker, until the outbox is drained. */
class BrokerDrainIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    private DSLContext dsl;
    private Outbox outbox;

    @BeforeEach
    void clean() throws SQLException {
        db.truncate();
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        outbox = Outbox.builder().tables(db.tables()).notifications(false).build();
    }

    private UUID ship(long parcelId) {
        return dsl.transactionResult(tx -> outbox.record(tx.dsl(), new Shipped(parcelId, "acme")));
    }

    @Test
    void drivesTheRealRelayWhileTheRealWorkerRunsUntilEveryDeliveryIsSettled() {
        String notifications = rabbit.queue("notifications");
        Routes routes = Routes.builder()
                .route(
                        "parcel.shipped",
                        Route.job("notify-customer", notifications, RetrySchedule.seconds(1), Duration.ofMinutes(1)))
                .build();
        Set<Long> notified = ConcurrentHashMap.newKeySet();
        OutboxTestKit kit = OutboxTestKit.builder()
                .dataSource(db.dataSource())
                .tables(db.tables())
                .build();
        try (OutboxRelay relay = OutboxRelay.builder()
                        .dataSource(db.dataSource())
                        .tables(db.tables())
                        .amqpUri(rabbit.uri())
                        .routes(routes)
                        .notifyChannel(
                                "outbox_test_" + UUID.randomUUID().toString().substring(0, 8))
                        .build();
                OutboxWorker worker = OutboxWorker.builder()
                        .dataSource(db.dataSource())
                        .tables(db.tables())
                        .amqpUri(rabbit.uri())
                        .queue(notifications)
                        .handler("notify-customer", Shipped.class, (event, context) -> {
                            if (event.parcelId() == 2 && context.attempt() == 1) {
                                throw new RetryableOutboxException("busy");
                            }
                            notified.add(event.parcelId());
                        })
                        .shutdownHook(false)
                        .build()) {
            worker.start();
            List<UUID> events = List.of(ship(1), ship(2), ship(3));

            int passes = kit.awaitDrained(relay, Duration.ofSeconds(30));

            assertThat(passes).isGreaterThan(1);
            assertThat(notified).containsExactlyInAnyOrder(1L, 2L, 3L);
            assertThat(kit.deliveries("notify-customer"))
                    .extracting(Delivery::eventId)
                    .containsExactlyInAnyOrderElementsOf(events);
            assertThat(kit.deliveries("notify-customer"))
                    .extracting(Delivery::status)
                    .containsOnly(Delivery.Status.COMPLETED);
            assertThat(kit.requireDelivery(events.get(1), "notify-customer").attempts())
                    .isEqualTo(2);
        }
    }

    /** A relay that routes parcel.shipped to an "archive" job on {@code queue}, with no retries. */
    private OutboxRelay archivingRelay(String queue) {
        Routes routes = Routes.builder()
                .route("parcel.shipped", Route.job("archive", queue, List.of(), Duration.ofMinutes(5)))
                .build();
        return OutboxRelay.builder()
                .dataSource(db.dataSource())
                .tables(db.tables())
                .amqpUri(rabbit.uri())
                .routes(routes)
                .build();
    }

    @Test
    void failsNamingTheDeliveriesStillDispatchedWhenNoWorkerReadsTheirQueue() {
        String unread = rabbit.queue("unread");
        OutboxTestKit kit = OutboxTestKit.builder()
                .dataSource(db.dataSource())
                .tables(db.tables())
                .build();
        ship(9);
        try (OutboxRelay relay = archivingRelay(unread)) {
            assertThatThrownBy(() -> kit.awaitDrained(relay, Duration.ofMillis(500)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("the outbox is not drained after PT0.5S")
                    .hasMessageContaining(
                            "1 deliveries pending or dispatched: archive on " + unread + " DISPATCHED attempt 1");
        }
    }

    @Test
    void waitsWithoutALimitForAForeverTimeout() {
        OutboxTestKit kit = OutboxTestKit.builder()
                .dataSource(db.dataSource())
                .tables(db.tables())
                .build();
        try (OutboxRelay relay = archivingRelay(rabbit.queue("forever"))) {
            // nothing recorded: the first pass is idle, so this returns at once, unless the timeout overflows
            assertThat(kit.awaitDrained(relay, ChronoUnit.FOREVER.getDuration()))
                    .isEqualTo(1);
        }
    }
}
