package dev.outbox.worker;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.MeterDocs;
import dev.outbox.worker.WorkerFixture.Sent;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jooq.JSONB;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The worker's meters, read from a SimpleMeterRegistry after real jobs on PostgreSQL and RabbitMQ: values, not presence. */
class WorkerMetersIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    @EventType("order.placed")
    record OrderPlaced(long orderId, String note) {}

    static final String JOB = "send-confirmation";
    static final AtomicInteger queues = new AtomicInteger();

    final List<OutboxWorker> workers = new ArrayList<>();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    String queue;

    @BeforeEach
    void newQueue() throws Exception {
        queue = fixture.queue("meters-" + queues.incrementAndGet());
    }

    @AfterEach
    void closeWorkers() {
        workers.forEach(OutboxWorker::close);
    }

    private void start(JobHandler<OrderPlaced> handler) {
        OutboxWorker worker = fixture.worker()
                .queue(queue, 2, 10)
                .handler(JOB, OrderPlaced.class, handler)
                .meterRegistry(registry)
                .build();
        workers.add(worker);
        worker.start();
    }

    private Sent send(long orderId, List<Integer> delays) throws Exception {
        Sent sent = fixture.dispatched(new OrderPlaced(orderId, "order " + orderId), JOB, queue, delays);
        fixture.publish(sent);
        return sent;
    }

    private void awaitStatus(UUID deliveryId, OutboxDeliveryStatus status) {
        await().atMost(Duration.ofSeconds(15)).until(() -> fixture.status(deliveryId) == status);
    }

    private double jobs(String outcome, String reason) {
        var counter = registry.find("outbox.worker.jobs")
                .tags("queue", queue, "job.type", JOB, "outcome", outcome, "reason", reason)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private double dropped(String reason) {
        var counter = registry.find("outbox.worker.messages.dropped")
                .tags("queue", queue, "reason", reason)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private double inFlight() {
        return registry.get("outbox.worker.jobs.in.flight")
                .tag("queue", queue)
                .gauge()
                .value();
    }

    private static void awaitValue(Supplier<Double> value, double expected) {
        await().atMost(Duration.ofSeconds(15)).until(() -> value.get() == expected);
    }

    @Test
    void countsEachHandlerRunByOutcomeAndTimesEveryRun() throws Exception {
        start((event, context) -> {
            if (event.orderId() == 2 && context.attempt() == 1) {
                throw new RetryableOutboxException("busy");
            }
            if (event.orderId() == 3) {
                throw new IllegalStateException("broken");
            }
        });
        Sent completes = send(1, List.of(60));
        Sent retried = send(2, List.of(60));
        Sent fails = send(3, List.of(60));
        awaitStatus(completes.deliveryId(), OutboxDeliveryStatus.completed);
        awaitStatus(fails.deliveryId(), OutboxDeliveryStatus.failed);
        awaitStatus(retried.deliveryId(), OutboxDeliveryStatus.pending);
        fixture.publish(fixture.dispatchAgain(retried));
        awaitStatus(retried.deliveryId(), OutboxDeliveryStatus.completed);

        awaitValue(() -> jobs("completed", "none"), 2);
        awaitValue(() -> jobs("retry", "none"), 1);
        awaitValue(() -> jobs("failed", "job_failed"), 1);
        assertThat(jobs("failed", "retries_exhausted")).isZero();
        assertThat(jobs("worker_died", "none")).isZero();
        assertThat(registry.get("outbox.worker.handler")
                        .tags("queue", queue, "job.type", JOB)
                        .timer()
                        .count())
                .isEqualTo(4);
        assertThat(registry.get("outbox.worker.lag")
                        .tags("queue", queue, "job.type", JOB)
                        .timer()
                        .count())
                .isEqualTo(4);
        assertThat(inFlight()).isZero();
    }

    @Test
    void countsARetryOnTheLastAttemptAsFailedRetriesExhaustedAndAnErrorAsWorkerDied() throws Exception {
        start((event, context) -> {
            if (event.orderId() == 4) {
                throw new RetryableOutboxException("busy");
            }
            throw new AssertionError("a JVM error");
        });
        Sent exhausted = send(4, List.of());
        Sent died = send(5, List.of(60));
        awaitStatus(exhausted.deliveryId(), OutboxDeliveryStatus.failed);
        awaitStatus(died.deliveryId(), OutboxDeliveryStatus.failed);

        awaitValue(() -> jobs("worker_died", "none"), 1);
        awaitValue(() -> jobs("failed", "retries_exhausted"), 1);
        assertThat(jobs("retry", "none")).isZero();
    }

    @Test
    void countsDroppedMessagesByReason() throws Exception {
        start((event, context) -> {});
        fixture.publishRaw(queue, "not json".getBytes(StandardCharsets.UTF_8));
        Sent unknownDelivery =
                new Sent(UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(), "order.placed", JOB, queue, 1, false);
        fixture.publish(unknownDelivery);
        Sent current = fixture.dispatched(new OrderPlaced(6, "x"), JOB, queue, List.of(60));
        fixture.publish(new Sent(
                current.eventId(), current.deliveryId(), UUID.randomUUID(), current.eventType(), JOB, queue, 1, false));
        Sent noHandler = fixture.dispatched(new OrderPlaced(7, "x"), "no-such-job", queue, List.of(60));
        fixture.publish(noHandler);

        awaitStatus(noHandler.deliveryId(), OutboxDeliveryStatus.failed);
        awaitValue(() -> dropped("bad_message"), 1);
        awaitValue(() -> dropped("unknown_delivery"), 1);
        awaitValue(() -> dropped("stale_dispatch"), 1);
        awaitValue(() -> dropped("unknown_job_type"), 1);
        assertThat(registry.find("outbox.worker.handler").timers())
                .as("no handler ran")
                .isEmpty();
        assertThat(registry.find("outbox.worker.jobs").counters()).isEmpty();
    }

    @Test
    void theInFlightGaugeRisesWhileAHandlerRunsAndFallsBackToZero() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start((event, context) -> {
            running.countDown();
            release.await(30, TimeUnit.SECONDS);
        });
        assertThat(inFlight()).as("registered for the queue before any job").isZero();
        Sent sent = send(8, List.of(60));
        assertThat(running.await(15, TimeUnit.SECONDS)).isTrue();
        assertThat(inFlight()).isEqualTo(1);

        release.countDown();
        awaitStatus(sent.deliveryId(), OutboxDeliveryStatus.completed);
        assertThat(inFlight()).isZero();
    }

    @Test
    void countsAJobStillRunningWhenTheShutdownGraceEndsOnceAsWorkerDiedThoughItsHandlerReturnsLater() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        OutboxWorker worker = fixture.worker()
                .queue(queue, 2, 10)
                .shutdownGrace(Duration.ofMillis(200))
                .meterRegistry(registry)
                .handler(JOB, OrderPlaced.class, (event, context) -> {
                    running.countDown();
                    try {
                        while (true) { // a job that ignores interruption and ends only when released
                            try {
                                if (release.await(30, TimeUnit.SECONDS)) {
                                    return;
                                }
                            } catch (InterruptedException e) {
                                // keeps running
                            }
                        }
                    } finally {
                        returned.countDown();
                    }
                })
                .build();
        workers.add(worker);
        worker.start();
        Sent sent = send(9, List.of(60));
        assertThat(running.await(15, TimeUnit.SECONDS)).isTrue();

        worker.close(); // the grace ends with the job running: T8, worker_died
        assertThat(fixture.status(sent.deliveryId())).isEqualTo(OutboxDeliveryStatus.failed);
        release.countDown();
        assertThat(returned.await(15, TimeUnit.SECONDS)).isTrue();

        // what the handler's return would count comes within milliseconds of it; none may come
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> jobs("completed", "none") == 0 && jobs("failed", "job_failed") == 0);
        assertThat(jobs("worker_died", "none")).isEqualTo(1);
        assertThat(fixture.status(sent.deliveryId())).isEqualTo(OutboxDeliveryStatus.failed);
    }

    @Test
    void everyMeterTheWorkerRegistersIsDocumentedWithItsType() throws Exception {
        start((event, context) -> {
            if (event.orderId() == 10) {
                throw new IllegalStateException("broken");
            }
        });
        Sent ok = send(9, List.of(60));
        Sent failed = send(10, List.of(60));
        fixture.publishRaw(queue, "{}".getBytes(StandardCharsets.UTF_8));
        awaitStatus(ok.deliveryId(), OutboxDeliveryStatus.completed);
        awaitStatus(failed.deliveryId(), OutboxDeliveryStatus.failed);
        awaitValue(() -> dropped("bad_message"), 1);

        Map<String, String> documented = MeterDocs.documented();
        assertThat(registry.getMeters())
                .extracting(m -> m.getId().getName())
                .contains(
                        "outbox.worker.handler",
                        "outbox.worker.jobs",
                        "outbox.worker.messages.dropped",
                        "outbox.worker.jobs.in.flight",
                        "outbox.worker.lag");
        for (Meter meter : registry.getMeters()) {
            assertThat(documented)
                    .as("docs/observability.md lists %s", meter.getId().getName())
                    .containsEntry(
                            meter.getId().getName(),
                            meter.getId().getType().name().toLowerCase(Locale.ROOT));
        }
    }

    @Test
    void noMeterTagAndNoLogLineCarriesThePayloadOrAnExceptionMessage() throws Exception {
        String marker = "payload-marker-" + UUID.randomUUID();
        try (LogCapture logs = new LogCapture()) {
            start((event, context) -> {
                if (event.orderId() == 12) {
                    throw new IllegalStateException(event.note()); // an external message holding the payload
                }
            });
            Sent ok = send(11, List.of(60));
            Sent failed = fixture.dispatched(new OrderPlaced(12, marker), JOB, queue, List.of(60));
            fixture.publish(failed);
            Sent unreadable = fixture.dispatched(new OrderPlaced(13, marker), JOB, queue, List.of(60));
            fixture.mapped
                    .update(OUTBOX_EVENTS)
                    .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{\"orderId\":\"" + marker + "\"}"))
                    .where(OUTBOX_EVENTS.ID.eq(unreadable.eventId()))
                    .execute();
            fixture.publish(unreadable);
            awaitStatus(ok.deliveryId(), OutboxDeliveryStatus.completed);
            awaitStatus(failed.deliveryId(), OutboxDeliveryStatus.failed);
            awaitStatus(unreadable.deliveryId(), OutboxDeliveryStatus.failed);
            awaitValue(() -> dropped("undeserializable_event"), 1);

            assertThat(logs.lines())
                    .as("log lines while the jobs ran")
                    .isNotEmpty()
                    .noneMatch(l -> l.contains(marker));
        }
        for (Meter meter : registry.getMeters()) {
            for (Tag tag : meter.getId().getTags()) {
                assertThat(tag.getValue()).doesNotContain(marker).doesNotContain("order ");
            }
        }
        awaitValue(() -> jobs("failed", "job_failed"), 1);
    }
}
