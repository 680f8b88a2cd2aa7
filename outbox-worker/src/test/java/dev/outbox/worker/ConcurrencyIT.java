package dev.outbox.worker;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.Slow;
import dev.outbox.worker.WorkerFixture.Sent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Eight handler threads over ten thousand deliveries: every delivery completed once, every job run once. */
@Slow
class ConcurrencyIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    static final int DELIVERIES = 10_000;

    @Test
    void eightConcurrentConsumersCompleteEachOfTenThousandDeliveriesExactlyOnce() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture(db, rabbit);
                LogCapture logs = new LogCapture()) {
            String queue = fixture.queue("bulk");
            List<Sent> sent = fixture.dispatchedInBulk(
                    IntStream.range(0, DELIVERIES)
                            .mapToObj(i -> new OrderPlaced(i))
                            .toList(),
                    "send-confirmation",
                    queue);
            for (Sent s : sent) {
                fixture.publish(s);
            }
            Map<UUID, AtomicInteger> runs = new ConcurrentHashMap<>();
            try (OutboxWorker worker = fixture.worker()
                    .queue(queue, 8, 500)
                    .handler(
                            "send-confirmation",
                            OrderPlaced.class,
                            (event, context) -> runs.computeIfAbsent(context.deliveryId(), k -> new AtomicInteger())
                                    .incrementAndGet())
                    .build()) {
                long start = System.nanoTime();
                worker.start();
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> fixture.mapped.fetchCount(
                                        OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.completed))
                                == DELIVERIES);
                long millis = (System.nanoTime() - start) / 1_000_000;
                System.out.printf(
                        "ConcurrencyIT: %d deliveries completed in %d ms (%.0f/s, a backlog drained from the worker's start)%n",
                        DELIVERIES, millis, DELIVERIES * 1000.0 / Math.max(1, millis));
            }

            assertThat(fixture.mapped.fetchCount(
                            OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.ne(OutboxDeliveryStatus.completed)))
                    .isZero();
            assertThat(fixture.mapped.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.COMPLETED_AT.isNull()))
                    .isZero();
            assertThat(runs).hasSize(DELIVERIES);
            assertThat(runs.values()).allMatch(n -> n.get() == 1);
            assertThat(logs.lines("WARN"))
                    .as("no completion found its row taken, no message dropped")
                    .isEmpty();
            assertThat(fixture.ready(queue)).isZero();
        }
    }
}
