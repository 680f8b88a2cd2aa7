package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.worker.WorkerFixture.Sent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Graceful shutdown: running jobs get the grace period, then are marked worker_died; jobs not started go back untouched. */
class ShutdownIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    static final String JOB = "send-confirmation";
    static int queues;

    LogCapture logs;
    String queue;
    final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void newQueue() throws Exception {
        queue = fixture.queue("shutdown-" + ++queues);
        logs = new LogCapture();
    }

    @AfterEach
    void releaseJobs() {
        release.countDown();
        logs.close();
    }

    @Test
    void letsARunningJobFinishWithinTheGracePeriod() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        OutboxWorker worker = fixture.worker()
                .queue(queue, 1, 5)
                .shutdownGrace(Duration.ofSeconds(10))
                .handler(JOB, OrderPlaced.class, (event, context) -> {
                    started.countDown();
                    Thread.sleep(300); // the job's work: it is still running when close() begins
                })
                .build();
        worker.start();
        Sent sent = fixture.dispatched(new OrderPlaced(1), JOB, queue, List.of(60));
        fixture.publish(sent);
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        worker.close();

        assertThat(fixture.status(sent.deliveryId())).isEqualTo(OutboxDeliveryStatus.completed);
        assertThat(fixture.ready(queue)).isZero();
    }

    @Test
    void marksAJobStillRunningAfterTheGracePeriodWorkerDiedAndGivesBackTheMessagesNotStarted() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        OutboxWorker worker = fixture.worker()
                .queue(queue, 1, 5)
                .shutdownGrace(Duration.ofMillis(300))
                .handler(JOB, OrderPlaced.class, (event, context) -> {
                    started.countDown();
                    release.await(); // a job that does not stop in time (it is interrupted when the worker closes)
                })
                .build();
        worker.start();
        Sent running = fixture.dispatched(new OrderPlaced(2), JOB, queue, List.of(60));
        Sent waiting1 = fixture.dispatched(new OrderPlaced(3), JOB, queue, List.of(60));
        Sent waiting2 = fixture.dispatched(new OrderPlaced(4), JOB, queue, List.of(60));
        fixture.publish(running);
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        fixture.publish(waiting1);
        fixture.publish(waiting2);
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.ready(queue) == 0); // both prefetched by the worker

        worker.close();

        assertThat(fixture.status(running.deliveryId())).isEqualTo(OutboxDeliveryStatus.failed);
        assertThat(fixture.row(running.deliveryId()).getFailureReason()).isEqualTo("worker_died");
        assertThat(logs.lines("ERROR", running.deliveryId(), "worker_died")).hasSize(1);
        assertThat(fixture.status(waiting1.deliveryId())).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(fixture.status(waiting2.deliveryId())).isEqualTo(OutboxDeliveryStatus.dispatched);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> fixture.ready(queue) == 2); // the two never started, back in the queue
    }
}
