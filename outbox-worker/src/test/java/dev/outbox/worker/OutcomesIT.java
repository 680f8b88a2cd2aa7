package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.delivery.internal.DeliveryLog;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.worker.WorkerFixture.Sent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.MDC;

/** What the worker writes for each way a handler can end, and which messages it refuses to run. */
class OutcomesIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    @EventType("order.placed")
    record OrderPlaced(long orderId, String email) {}

    static final String JOB = "send-confirmation";
    static final AtomicInteger queues = new AtomicInteger();

    final List<OutboxWorker> workers = new ArrayList<>();
    LogCapture logs;
    String queue;

    @BeforeEach
    void newQueue() throws Exception {
        queue = fixture.queue("outcomes-" + queues.incrementAndGet());
        logs = new LogCapture();
    }

    @AfterEach
    void closeWorkers() {
        workers.forEach(OutboxWorker::close);
        logs.close();
    }

    private OutboxWorker start(JobHandler<OrderPlaced> handler) {
        OutboxWorker worker = fixture.worker()
                .queue(queue, 2, 10)
                .handler(JOB, OrderPlaced.class, handler)
                .build();
        workers.add(worker);
        worker.start();
        return worker;
    }

    private Sent send(long orderId, List<Integer> delays) throws Exception {
        Sent sent = fixture.dispatched(new OrderPlaced(orderId, "a@example.com"), JOB, queue, delays);
        fixture.publish(sent);
        return sent;
    }

    private void awaitStatus(UUID deliveryId, OutboxDeliveryStatus status) {
        await().atMost(Duration.ofSeconds(15)).until(() -> fixture.status(deliveryId) == status);
    }

    @Test
    void completesTheDeliveryWhenTheHandlerReturnsAndGivesItTheEventAndItsContext() throws Exception {
        List<Object> seen = new CopyOnWriteArrayList<>();
        OutboxWorker worker = start((event, context) -> {
            seen.add(event);
            seen.add(List.of(
                    context.eventId(),
                    context.deliveryId(),
                    context.dispatchId(),
                    context.attempt(),
                    context.lastAttempt(),
                    context.jobType(),
                    context.eventType(),
                    context.queue(),
                    context.isCurrentAttempt()));
            seen.add(MDC.get(DeliveryLog.MDC_EVENT_ID) + " " + MDC.get(DeliveryLog.MDC_DELIVERY_ID));
        });
        Sent sent = send(1, List.of(60));

        awaitStatus(sent.deliveryId(), OutboxDeliveryStatus.completed);

        OutboxDeliveriesRecord row = fixture.row(sent.deliveryId());
        assertThat(row.getCompletedAt()).isEqualTo(WorkerFixture.now());
        assertThat(row.getDeliveryTimeoutAt()).isNull();
        assertThat(row.getDispatchId()).isEqualTo(sent.dispatchId());
        assertThat(seen)
                .containsExactly(
                        new OrderPlaced(1, "a@example.com"),
                        List.of(
                                sent.eventId(),
                                sent.deliveryId(),
                                sent.dispatchId(),
                                1,
                                false,
                                JOB,
                                "order.placed",
                                queue,
                                true),
                        sent.eventId() + " " + sent.deliveryId());
        worker.close();
        assertThat(fixture.ready(queue))
                .as("acknowledged, so nothing comes back when the worker closes")
                .isZero();
    }

    @Test
    void retriesAfterSixtyThenAHundredAndTwentySecondsThenFailsRetriesExhausted() throws Exception {
        List<Boolean> lastAttempts = new CopyOnWriteArrayList<>();
        OutboxWorker worker = start((event, context) -> {
            lastAttempts.add(context.lastAttempt());
            throw new RetryableOutboxException("mail server busy");
        });
        Sent first = send(2, List.of(60, 120));

        awaitStatus(first.deliveryId(), OutboxDeliveryStatus.pending);
        OutboxDeliveriesRecord afterFirst = fixture.row(first.deliveryId());
        assertThat(afterFirst.getAvailableAt()).isEqualTo(WorkerFixture.now().plusSeconds(60));
        assertThat(afterFirst.getDispatchedAt()).isNull();
        assertThat(afterFirst.getDeliveryTimeoutAt()).isNull();

        Sent second = fixture.dispatchAgain(first);
        fixture.publish(second);
        awaitStatus(first.deliveryId(), OutboxDeliveryStatus.pending);
        assertThat(fixture.row(first.deliveryId()).getAvailableAt())
                .isEqualTo(WorkerFixture.now().plusSeconds(120));

        Sent third = fixture.dispatchAgain(second);
        fixture.publish(third);
        awaitStatus(first.deliveryId(), OutboxDeliveryStatus.failed);

        OutboxDeliveriesRecord row = fixture.row(first.deliveryId());
        assertThat(row.getFailureReason()).isEqualTo("retries_exhausted");
        assertThat(row.getAttempts()).isEqualTo(3);
        assertThat(lastAttempts).containsExactly(false, false, true);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> logs.lines("ERROR", first.deliveryId(), "retries_exhausted")
                                .size()
                        == 1);
        // the first retry of the queue in the log digest's interval is a line of its own, the second is counted
        assertThat(logs.lines("WARN", first.deliveryId(), "retry scheduled"))
                .singleElement()
                .asString()
                .contains("attempt 1 failed");
        worker.close();
        assertThat(logs.lines("WARN", "1 more × attempt failed (retryable_error), retry scheduled"))
                .singleElement()
                .asString()
                .contains("delivery " + first.deliveryId() + " attempt 2");
    }

    @Test
    void failsForGoodOnTheFirstRetryableErrorWhenThereAreNoDelays() throws Exception {
        List<Boolean> lastAttempts = new CopyOnWriteArrayList<>();
        start((event, context) -> {
            lastAttempts.add(context.lastAttempt());
            throw new RetryableOutboxException("mail server busy");
        });
        Sent sent = send(3, List.of());

        awaitStatus(sent.deliveryId(), OutboxDeliveryStatus.failed);

        OutboxDeliveriesRecord row = fixture.row(sent.deliveryId());
        assertThat(row.getFailureReason()).isEqualTo("retries_exhausted");
        assertThat(row.getAttempts()).isEqualTo(1);
        assertThat(row.getFailedAt()).isEqualTo(WorkerFixture.now());
        assertThat(lastAttempts).containsExactly(true);
    }

    @Test
    void logsUnderThePublicLoggerNames() throws Exception {
        OutboxWorker worker = start((event, context) -> {
            throw new IllegalStateException("declined");
        });
        Sent sent = send(5, List.of());

        awaitStatus(sent.deliveryId(), OutboxDeliveryStatus.failed);
        worker.close();

        // logback's %logger{36} prints names of up to 36 characters in full
        await().atMost(Duration.ofSeconds(5))
                .until(() -> logs.lines("ERROR", " " + WorkerLoggers.JOBS + " ", sent.deliveryId())
                                .size()
                        == 1);
        assertThat(logs.lines("INFO", " " + WorkerLoggers.BROKER + " ", "consuming queue " + queue))
                .hasSize(1);
        assertThat(logs.lines("INFO", " " + WorkerLoggers.LIFECYCLE + " ", "closed"))
                .isNotEmpty();
        assertThat(logs.lines()).noneMatch(l -> l.contains(".internal."));
        assertThat(List.of(WorkerLoggers.JOBS, WorkerLoggers.BROKER, WorkerLoggers.LIFECYCLE))
                .allMatch(n -> n.startsWith(WorkerLoggers.ALL + "."));
    }

    @Test
    void failsJobFailedAtOnceOnAnyOtherExceptionLoggingItsClassButNotItsMessage() throws Exception {
        OutboxWorker worker = start((event, context) -> {
            throw new IllegalStateException("card 4111-1111 declined");
        });
        Sent sent = send(4, List.of(60, 120));

        awaitStatus(sent.deliveryId(), OutboxDeliveryStatus.failed);

        OutboxDeliveriesRecord row = fixture.row(sent.deliveryId());
        assertThat(row.getFailureReason()).isEqualTo("job_failed");
        assertThat(row.getAttempts()).isEqualTo(1);
        assertThat(row.getDeliveryTimeoutAt()).isNull();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> logs.lines(
                                        "ERROR",
                                        sent.deliveryId(),
                                        "job_failed",
                                        "java.lang.IllegalStateException",
                                        "[event=" + sent.eventId() + " delivery=" + sent.deliveryId() + "]")
                                .size()
                        == 1);
        assertThat(logs.lines()).noneMatch(l -> l.contains("4111"));
        worker.close();
        assertThat(fixture.ready(queue)).isZero();
    }

    @Test
    void marksWorkerDiedOnAnErrorAndGoesOnServingTheNextMessage() throws Exception {
        start((event, context) -> {
            if (event.orderId() == 5) {
                throw new StackOverflowError();
            }
        });
        Sent dying = send(5, List.of(60));
        awaitStatus(dying.deliveryId(), OutboxDeliveryStatus.failed);
        Sent next = send(6, List.of(60));
        awaitStatus(next.deliveryId(), OutboxDeliveryStatus.completed);

        assertThat(fixture.row(dying.deliveryId()).getFailureReason()).isEqualTo("worker_died");
        assertThat(logs.lines("ERROR", dying.deliveryId(), "worker_died", "StackOverflowError"))
                .hasSize(1);
    }

    @Test
    void leavesTheDeliveryAloneWhenASupersededDispatchCompletesLate() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start((event, context) -> {
            started.countDown();
            release.await(10, TimeUnit.SECONDS);
        });
        Sent first = send(7, List.of(60));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        Sent second = fixture.dispatchAgain(first); // it timed out and was dispatched again meanwhile

        release.countDown();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> logs.lines("WARN", first.deliveryId(), first.dispatchId(), "found no row")
                                .size()
                        == 1);
        OutboxDeliveriesRecord row = fixture.row(first.deliveryId());
        assertThat(row.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(row.getDispatchId()).isEqualTo(second.dispatchId());
        assertThat(row.getAttempts()).isEqualTo(2);
        assertThat(row.getCompletedAt()).isNull();
    }

    @Test
    void isCurrentAttemptTurnsFalseOnceTheDeliveryIsDispatchedAgain() throws Exception {
        List<Boolean> answers = new CopyOnWriteArrayList<>();
        CountDownLatch firstPage = new CountDownLatch(1);
        CountDownLatch redispatched = new CountDownLatch(1);
        start((event, context) -> {
            answers.add(context.isCurrentAttempt());
            firstPage.countDown();
            redispatched.await(10, TimeUnit.SECONDS);
            answers.add(context.isCurrentAttempt());
        });
        Sent first = send(8, List.of(60));
        assertThat(firstPage.await(10, TimeUnit.SECONDS)).isTrue();

        fixture.dispatchAgain(first);
        redispatched.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> answers.size() == 2);
        assertThat(answers).containsExactly(true, false);
    }

    @Test
    void dropsAMessageOfASupersededDispatchWithoutRunningTheJob() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        start((event, context) -> calls.incrementAndGet());
        Sent first = fixture.dispatched(new OrderPlaced(9, "a@example.com"), JOB, queue, List.of(60));
        Sent second = fixture.dispatchAgain(first);

        fixture.publish(first);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> logs.lines("WARN", first.deliveryId(), first.dispatchId(), "dropped without running")
                                .size()
                        == 1);
        assertThat(calls).hasValue(0);
        OutboxDeliveriesRecord row = fixture.row(first.deliveryId());
        assertThat(row.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(row.getDispatchId()).isEqualTo(second.dispatchId());
    }

    @Test
    void doesNotRunAJobWhoseDispatchWasSupersededWhileItsMessageWaitedForAHandlerThread() throws Exception {
        List<UUID> ran = new CopyOnWriteArrayList<>();
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        OutboxWorker worker = fixture.worker()
                .queue(queue, 1, 10)
                .handler(JOB, OrderPlaced.class, (event, context) -> {
                    ran.add(context.dispatchId());
                    busy.countDown();
                    release.await(10, TimeUnit.SECONDS);
                })
                .build();
        workers.add(worker);
        worker.start();
        Sent first = send(20, List.of(60));
        assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue(); // the only handler thread is taken
        Sent waiting = send(21, List.of(60));
        Thread.sleep(500); // its delivery is read (dispatched, this dispatch) while it waits for the handler thread
        Sent again = fixture.dispatchAgain(waiting); // meanwhile it times out and is dispatched again
        Thread.sleep(1_500); // longer than a lookup is taken as fresh

        release.countDown();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> logs.lines("WARN", waiting.deliveryId(), waiting.dispatchId(), "dropped without running")
                                .size()
                        == 1);
        awaitStatus(first.deliveryId(), OutboxDeliveryStatus.completed);
        assertThat(ran).containsExactly(first.dispatchId());
        OutboxDeliveriesRecord row = fixture.row(waiting.deliveryId());
        assertThat(row.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(row.getDispatchId()).isEqualTo(again.dispatchId());
    }

    @Test
    void dropsAMessageOfAnUnknownDeliveryWithoutRunningTheJob() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        OutboxWorker worker = start((event, context) -> calls.incrementAndGet());
        Sent ghost =
                new Sent(UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(), "order.placed", JOB, queue, 1, false);

        fixture.publish(ghost);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> logs.lines("WARN", ghost.deliveryId(), "unknown delivery")
                                .size()
                        == 1);
        assertThat(calls).hasValue(0);
        worker.close();
        assertThat(fixture.ready(queue)).isZero();
    }

    @Test
    void runsTheJobOncePerDispatchWhenTheSameMessageArrivesTwice() throws Exception {
        Map<UUID, AtomicInteger> calls = new ConcurrentHashMap<>();
        CountDownLatch release = new CountDownLatch(1);
        start((event, context) -> {
            calls.computeIfAbsent(context.dispatchId(), k -> new AtomicInteger())
                    .incrementAndGet();
            release.await(10, TimeUnit.SECONDS);
        });
        Sent sent = fixture.dispatched(new OrderPlaced(10, "a@example.com"), JOB, queue, List.of(60));

        fixture.publish(sent);
        fixture.publish(sent); // arrives while the first copy runs
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        logs.lines("WARN", sent.dispatchId(), "arrived again").size() == 1);
        release.countDown();
        awaitStatus(sent.deliveryId(), OutboxDeliveryStatus.completed);
        fixture.publish(sent); // arrives after the outcome
        await().atMost(Duration.ofSeconds(10))
                .until(() -> logs.lines("WARN", sent.dispatchId(), "dropped without running")
                                .size()
                        == 1);

        assertThat(calls).containsOnlyKeys(sent.dispatchId());
        assertThat(calls.get(sent.dispatchId())).hasValue(1);
    }
}
