package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay's backpressure (issue 37): it stops dispatching to a job queue that holds its bound of
 * messages waiting for a worker, leaves those deliveries pending, goes on with other queues, and
 * dispatches again by itself once consumers have taken messages.
 */
class BackpressureIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static String slow;
    static String fast;

    @BeforeAll
    static void queues() {
        slow = fixture.queue("backpressure-slow");
        fast = fixture.queue("backpressure-fast");
    }

    final MutableClock clock = MutableClock.startingNow();

    private OutboxRelay relay(SimpleMeterRegistry registry) {
        return fixture.closeAfterEach(fixture.relay(clock)
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.job("send-confirmation", slow, RetrySchedule.seconds(5), Duration.ofSeconds(60)))
                        .route(
                                "order.cancelled",
                                Route.job("refund", fast, RetrySchedule.seconds(5), Duration.ofSeconds(60)))
                        .build())
                .dispatchBatchSize(10)
                .maxQueueDepth(20)
                .meterRegistry(registry)
                .build());
    }

    @Test
    void stopsDispatchingToAFullQueueLeavesItsDeliveriesPendingAndGoesOnWithTheOthers() throws Exception {
        Tables tables = fixture.tables();
        tables.recordAll(IntStream.range(0, 100)
                .mapToObj(i -> new OrderPlaced(i, BigDecimal.ONE))
                .toList());
        tables.recordAll(
                IntStream.range(0, 30).mapToObj(Events.OrderCancelled::new).toList());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        OutboxRelay relay = relay(registry);

        PassResult first = relay.runOnce();

        // the bound, overshot by at most one claim batch while the broker's count catches up with the publishes
        assertThat(fixture.broker().messageCount(slow)).isBetween(20L, 30L);
        assertThat(fixture.broker().messageCount(fast)).isBetween(20L, 30L);
        assertThat(first.dispatched()).isEqualTo((int)
                (fixture.broker().messageCount(slow) + fixture.broker().messageCount(fast)));
        assertThat(pending(tables)).isEqualTo(130 - first.dispatched());
        assertThat(registry.get("outbox.relay.queue.held")
                        .tag("queue", slow)
                        .gauge()
                        .value())
                .isEqualTo(1.0);
        assertThat(registry.get("outbox.relay.queue.depth.max")
                        .tag("queue", slow)
                        .gauge()
                        .value())
                .as("the bound")
                .isEqualTo(20.0);
        assertThat(registry.get("outbox.relay.queue.depth")
                        .tag("queue", slow)
                        .gauge()
                        .value())
                .isGreaterThanOrEqualTo(20.0);

        assertThat(relay.runOnce().dispatched())
                .as("nothing taken, nothing more sent")
                .isZero();

        fixture.broker().take(slow, 15); // a consumer takes 15 (and acknowledges them)
        fixture.broker().take(fast, (int) fixture.broker().messageCount(fast));
        clock.advance(Duration.ofMillis(1)); // the relay reads the depth again before its next claim
        Thread.sleep(
                30); // the recheck interval of a full queue (QueueDepths.RECHECK_NANOS, 20 ms) is measured on the JVM's
        // clock

        PassResult second = relay.runOnce();

        assertThat(second.dispatched()).isPositive();
        assertThat(fixture.broker().messageCount(slow)).isBetween(20L, 30L);
        assertThat(registry.get("outbox.relay.queue.holds")
                        .tag("queue", slow)
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1.0);
    }

    private static long pending(Tables tables) {
        return tables.deliveries().stream()
                .filter(d -> d.getStatus() == OutboxDeliveryStatus.pending)
                .count();
    }

    @Test
    void withoutABoundDispatchesEverything() throws Exception {
        Tables tables = fixture.tables();
        tables.recordAll(IntStream.range(0, 60)
                .mapToObj(i -> new OrderPlaced(i, BigDecimal.ONE))
                .toList());
        try (OutboxRelay relay = fixture.relay(clock)
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.job("send-confirmation", slow, RetrySchedule.seconds(5), Duration.ofSeconds(60)))
                        .build())
                .dispatchBatchSize(10)
                .maxQueueDepth(0)
                .build()) {

            assertThat(relay.runOnce().dispatched()).isEqualTo(60);
        }
        assertThat(fixture.broker().messageCount(slow)).isEqualTo(60);
        assertThat(pending(tables)).isZero();
    }
}
