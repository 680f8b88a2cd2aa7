package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.BuiltinExchangeType;
import dev.outbox.api.Outbox;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.testing.MutableClock;
import dev.outbox.relay.QueueType;
import dev.outbox.relay.RelayFixture;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
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
        Routes routes = Routes.builder()
                .route("order.placed", Route.publish("order-events", exchange, "order.placed", RetrySchedule.seconds(5), Duration.ofSeconds(60)))
                .build();
        return new RelayEngine(new RelaySettings(fixture.db.dataSource(), fixture.rabbit.connectionFactory(), routes, fixture.db.tables(),
                clock, 500, 500, 500, 2_000, Duration.ofSeconds(30), QueueType.CLASSIC, Outbox.DEFAULT_NOTIFY_CHANNEL, true,
                Duration.ofSeconds(1), null, Duration.ZERO, RelayMeters.NONE));
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
}
