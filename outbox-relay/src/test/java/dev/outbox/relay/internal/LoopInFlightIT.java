package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.BuiltinExchangeType;
import dev.outbox.api.Outbox;
import dev.outbox.relay.DatabaseUnavailableException;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.relay.QueueType;
import dev.outbox.relay.RelayFixture;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.Intercept;
import dev.outbox.testing.MutableClock;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The loop leaves the last batch of a busy pass in flight for the next pass to settle: whatever
 * happens next, no publish stays unsettled when the loop ends.
 */
class LoopInFlightIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static String exchange;

    @BeforeAll
    static void exchange() throws Exception {
        exchange = fixture.rabbit.exchange("orders");
        fixture.broker().channel().exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true);
        String subscriber = fixture.queue("billing-subscriber");
        fixture.broker().channel().queueDeclare(subscriber, true, false, false, null);
        fixture.broker().channel().queueBind(subscriber, exchange, "order.*");
    }

    private RelayEngine engine(MutableClock clock) {
        return engine(clock, fixture.db.dataSource(), 500);
    }

    private RelayEngine engine(MutableClock clock, DataSource dataSource, int batchSize) {
        Routes routes = Routes.builder()
                .route(
                        "order.placed",
                        Route.publish(
                                "order-events",
                                exchange,
                                "order.placed",
                                RetrySchedule.seconds(5),
                                Duration.ofSeconds(60)))
                .build();
        return new RelayEngine(new RelaySettings(
                dataSource,
                fixture.rabbit.connectionFactory(),
                routes,
                fixture.db.tables(),
                clock,
                batchSize,
                batchSize,
                500,
                2_000,
                0,
                Duration.ofSeconds(30),
                QueueType.CLASSIC,
                Outbox.DEFAULT_NOTIFY_CHANNEL,
                true,
                Duration.ofSeconds(1),
                null,
                Duration.ZERO,
                RelayMeters.NONE));
    }

    @Test
    void aLoopStoppedRightAfterABusyPassSettlesWhatThatPassLeftInFlight() {
        Tables tables = fixture.tables();
        List<UUID> events = tables.record(new OrderPlaced(1, BigDecimal.ONE), new OrderPlaced(2, BigDecimal.TEN));
        AtomicInteger checks = new AtomicInteger();
        try (RelayEngine engine = engine(MutableClock.startingNow())) {
            engine.loop(() -> checks.getAndIncrement() >= 1); // exactly one pass, then the loop ends
        }
        assertThat(checks.get()).isEqualTo(2);
        for (UUID event : events) {
            assertThat(tables.delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.completed);
        }
    }

    @Test
    void theNextPassOfTheLoopSettlesTheLastBatchOfTheBusyOneBeforeItWaits() {
        Tables tables = fixture.tables();
        UUID event = tables.record(new OrderPlaced(3, BigDecimal.ONE)).get(0);
        AtomicInteger checks = new AtomicInteger();
        try (RelayEngine engine = engine(MutableClock.startingNow())) {
            // two passes: the busy one, then one that finds nothing new and settles; stopped before its wait ends
            engine.loop(() -> {
                int n = checks.getAndIncrement();
                if (n == 2) {
                    assertThat(tables.delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.completed);
                }
                return n >= 2;
            });
        }
        assertThat(checks.get()).isGreaterThanOrEqualTo(3);
        assertThat(tables.delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.completed);
    }

    /**
     * The class's data source, except that the {@code failing}-th connection asked for on the routing
     * thread (T1's batches) is refused as by a database going away.
     */
    private static DataSource refusingRoutingConnection(int failing) {
        AtomicInteger asked = new AtomicInteger();
        return Intercept.of(DataSource.class, fixture.db.dataSource(), call -> {
            if (call.name().equals("getConnection")
                    && Thread.currentThread().getName().equals("outbox-relay-route")
                    && asked.incrementAndGet() == failing) {
                throw new SQLException("test: the database went away", "08006");
            }
            return call.proceed();
        });
    }

    @Test
    void aPassThatFailsAfterPublishingABatchLeavesItToTheNextPassToSettle() {
        Tables tables = fixture.tables();
        List<UUID> events = tables.record(new OrderPlaced(4, BigDecimal.ONE), new OrderPlaced(5, BigDecimal.TEN));
        // batches of one: route the first (the routing thread's connection 1), claim and publish it; routing the second
        // (2) fails
        try (RelayEngine engine = engine(MutableClock.startingNow(), refusingRoutingConnection(2), 1)) {
            assertThatThrownBy(engine::pass).isInstanceOf(DatabaseUnavailableException.class);
            assertThat(tables.delivery(events.get(0)).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);

            engine.pass();
        }
        for (UUID event : events) {
            assertThat(tables.delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.completed);
        }
    }
}
