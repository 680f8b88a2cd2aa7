package dev.outbox.worker;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.delivery.RouteTable;
import dev.outbox.delivery.internal.RelayTransitions;
import dev.outbox.delivery.internal.RetryOutcome;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.worker.WorkerFixture.Sent;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A message that waits in the worker for a free handler thread is not a job that ran out of time:
 * while it waits, the worker renews its start, so the relay's timeout sweep (T4) takes only the job
 * that started and overran, and the waiting one runs once its turn comes.
 */
class WaitingInWorkerIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    static final String JOB = "send-confirmation";
    static final int TIMEOUT_SECONDS = 3;

    @Test
    void aMessageWaitingForAHandlerThreadDoesNotTimeOut() throws Exception {
        String queue = fixture.queue("waiting");
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Sent first = fixture.dispatched(new OrderPlaced(1), JOB, queue, List.of());
        Sent second = fixture.dispatched(new OrderPlaced(2), JOB, queue, List.of());
        fixture.mapped
                .update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_SECONDS, TIMEOUT_SECONDS)
                .where(OUTBOX_DELIVERIES.ID.in(first.deliveryId(), second.deliveryId()))
                .execute();
        try (OutboxWorker worker = fixture.worker()
                .clock(Clock.systemUTC()) // the start is the worker's now; the sweep below reads the same clock
                .queue(queue, 1, 10)
                .handler(JOB, OrderPlaced.class, (event, context) -> {
                    if (event.orderId() == 1) {
                        firstRunning.countDown();
                        release.await(30, TimeUnit.SECONDS);
                    }
                })
                .build()) {
            worker.start();
            fixture.publish(first);
            assertThat(firstRunning.await(20, TimeUnit.SECONDS))
                    .as("the first job runs")
                    .isTrue();
            fixture.publish(second);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fixture.row(second.deliveryId()).getStartedAt() != null);

            Thread.sleep(TimeUnit.SECONDS.toMillis(
                    TIMEOUT_SECONDS + 2)); // both past their timeout counted from the first start

            RelayTransitions relay =
                    new RelayTransitions(fixture.tables(), new RouteTable(Map.of()), Clock.systemUTC());
            List<RetryOutcome> timedOut = fixture.dsl.transactionResult(tx -> relay.timeOut(tx.dsl(), 100));
            assertThat(timedOut)
                    .as("only the job that started and overran")
                    .extracting(RetryOutcome::deliveryId)
                    .containsExactly(first.deliveryId());
            assertThat(fixture.row(second.deliveryId()).getAttempts())
                    .as("no attempt spent")
                    .isEqualTo(1);

            release.countDown();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> fixture.status(second.deliveryId()) == OutboxDeliveryStatus.completed);
        }
        assertThat(fixture.row(first.deliveryId()).getFailureReason()).isEqualTo("timeout");
    }
}
