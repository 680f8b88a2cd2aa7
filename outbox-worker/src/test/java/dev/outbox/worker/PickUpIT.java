package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.worker.WorkerFixture.Sent;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the worker trusts when it takes a message: it marks the dispatch started (T2s) before the
 * handler runs, takes the delivery's kind and the trace context from the rows, never from the
 * message, and runs no job for a publish route's delivery.
 */
class PickUpIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    static final String JOB = "send-confirmation";
    static final AtomicInteger queues = new AtomicInteger();
    static final String FORGED = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    /** started_at of the handler's row, as each handler saw it while it ran. */
    final List<Optional<OffsetDateTime>> seen = new CopyOnWriteArrayList<>();

    final List<Optional<String>> traceparents = new CopyOnWriteArrayList<>();
    LogCapture logs;
    String queue;
    OutboxWorker worker;

    @BeforeEach
    void startWorker() throws Exception {
        logs = new LogCapture();
        queue = fixture.queue("pick-up-" + queues.incrementAndGet());
        worker = fixture.worker()
                .queue(queue, 1, 10)
                .handler(JOB, OrderPlaced.class, (event, context) -> {
                    seen.add(Optional.ofNullable(
                            fixture.row(context.deliveryId()).getStartedAt()));
                    traceparents.add(context.traceparent());
                })
                .build();
        worker.start();
    }

    @AfterEach
    void stopWorker() {
        worker.close();
        logs.close();
    }

    @Test
    void marksTheDispatchStartedBeforeItsHandlerRuns() throws Exception {
        Sent sent = fixture.dispatched(new OrderPlaced(1), JOB, queue, List.of(60));

        fixture.publish(sent);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> fixture.status(sent.deliveryId()) == OutboxDeliveryStatus.completed);
        OutboxDeliveriesRecord row = fixture.row(sent.deliveryId());
        assertThat(seen).as("the handler saw its start").singleElement().isEqualTo(Optional.of(row.getStartedAt()));
        assertThat(row.getStartedAt())
                .as("started at the worker's now, never before the dispatch")
                .isEqualTo(row.getDispatchedAt());
        assertThat(row.getUnstartedTimeouts()).isZero();
    }

    @Test
    void takesTheTraceContextFromTheEventNotFromTheMessage() throws Exception {
        Sent sent = fixture.dispatched(new OrderPlaced(2), JOB, queue, List.of(60)); // recorded without a trace

        fixture.publish(sent, FORGED);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> fixture.status(sent.deliveryId()) == OutboxDeliveryStatus.completed);
        assertThat(traceparents).containsExactly(Optional.empty());
    }

    @Test
    void runsNoJobForAMessageNamingAPublishRoutesDelivery() throws Exception {
        Sent sent = fixture.dispatchedPublish(new OrderPlaced(3), "orders", queue);
        OutboxDeliveriesRecord before = fixture.row(sent.deliveryId());

        fixture.publish(sent);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> logs.lines("WARN", sent.deliveryId(), "publish route's delivery")
                                .size()
                        == 1);
        assertThat(seen).as("no handler ran").isEmpty();
        assertThat(fixture.row(sent.deliveryId()))
                .as("the relay's delivery, untouched")
                .isEqualTo(before);
        worker.close();
        assertThat(fixture.ready(queue)).as("rejected, never requeued").isZero();
    }
}
