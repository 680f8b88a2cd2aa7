package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.delivery.LogText;
import dev.outbox.delivery.internal.DeliveryMessage;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.worker.WorkerFixture.Sent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Messages the worker cannot run never stop its consumer: each is rejected or acknowledged without
 * requeue, with a WARNING naming the ids it could read, and a delivery it can identify fails with a safe
 * reason. After each one, the same worker still completes a good message.
 */
class MalformedMessagesIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    @EventType("counter.texted")
    record Texted(String number) {}

    record Numbered(int number) {}

    @EventType("counter.renamed")
    record Renamed(int n) {}

    static final String JOB = "send-confirmation";
    static final String COUNT = "count";
    static final AtomicInteger queues = new AtomicInteger();

    final AtomicInteger calls = new AtomicInteger();
    LogCapture logs;
    String queue;
    OutboxWorker worker;

    @BeforeEach
    void startWorker() throws Exception {
        logs = new LogCapture();
        queue = fixture.queue("malformed-" + queues.incrementAndGet());
        worker = fixture.worker()
                .queue(queue, 2, 10)
                .handler(JOB, OrderPlaced.class, (event, context) -> calls.incrementAndGet())
                .handler(COUNT, Numbered.class, (event, context) -> calls.incrementAndGet())
                .build();
        worker.start();
    }

    @AfterEach
    void stopWorker() {
        worker.close();
        logs.close();
    }

    /** The consumer survived: a good message still completes, and nothing was requeued. */
    private void assertStillServing() throws Exception {
        Sent good = fixture.dispatched(new OrderPlaced(100), JOB, queue, List.of(60));
        fixture.publish(good);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> fixture.status(good.deliveryId()) == OutboxDeliveryStatus.completed);
        worker.close();
        assertThat(fixture.ready(queue))
                .as("rejected or acknowledged, never requeued")
                .isZero();
    }

    private void awaitFailed(UUID deliveryId, String reason) {
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.status(deliveryId) == OutboxDeliveryStatus.failed);
        OutboxDeliveriesRecord row = fixture.row(deliveryId);
        assertThat(row.getFailureReason()).isEqualTo(reason);
        assertThat(row.getDeliveryTimeoutAt()).isNull();
    }

    @Test
    void rejectsABodyThatIsNotJson() throws Exception {
        fixture.publishRaw(queue, "{not json".getBytes(StandardCharsets.UTF_8));

        await().atMost(Duration.ofSeconds(10))
                .until(() -> logs.lines("WARN", "body is not JSON", queue).size() == 1);
        assertThat(calls).hasValue(0);
        assertStillServing();
    }

    @Test
    void rejectsAMessageWithoutUsableIdsAndNamesTheIdsItCouldRead() throws Exception {
        Sent sent = fixture.dispatched(new OrderPlaced(1), JOB, queue, List.of(60));
        String body =
                "{\"eventId\":\"" + sent.eventId() + "\",\"dispatchId\":\"not-a-uuid\",\"eventType\":\"order.placed\","
                        + "\"jobType\":\"" + JOB + "\",\"attempt\":1,\"lastAttempt\":false}";

        fixture.publishRaw(queue, body.getBytes(StandardCharsets.UTF_8));

        await().atMost(Duration.ofSeconds(10))
                .until(() -> logs.lines("WARN", "deliveryId is missing or not a UUID", "event " + sent.eventId())
                                .size()
                        == 1);
        assertThat(calls).hasValue(0);
        assertThat(fixture.status(sent.deliveryId()))
                .as("no delivery could be identified")
                .isEqualTo(OutboxDeliveryStatus.dispatched);
        assertStillServing();
    }

    @Test
    void failsTheDeliveryBadMessageWhenItsIdsAreReadableButTheRestIsNot() throws Exception {
        Sent sent = fixture.dispatched(new OrderPlaced(2), JOB, queue, List.of(60));
        String body = "{\"eventId\":\"" + sent.eventId() + "\",\"deliveryId\":\"" + sent.deliveryId()
                + "\",\"dispatchId\":\"" + sent.dispatchId() + "\",\"eventType\":\"order.placed\",\"jobType\":\"" + JOB
                + "\",\"lastAttempt\":false}";

        fixture.publishRaw(queue, body.getBytes(StandardCharsets.UTF_8));

        awaitFailed(sent.deliveryId(), "bad_message");
        assertThat(logs.lines("WARN", "attempt is missing", sent.deliveryId(), sent.dispatchId()))
                .hasSize(1);
        assertThat(calls).hasValue(0);
        assertStillServing();
    }

    @Test
    void failsTheDeliveryUnknownJobTypeWhenNoHandlerIsRegisteredForIt() throws Exception {
        Sent sent = fixture.dispatched(new OrderPlaced(3), "archive-order", queue, List.of(60));

        fixture.publish(sent);

        awaitFailed(sent.deliveryId(), "unknown_job_type");
        assertThat(logs.lines("WARN", "no handler for job type archive-order", sent.deliveryId()))
                .hasSize(1);
        assertThat(calls).hasValue(0);
        assertStillServing();
    }

    @Test
    void failsTheDeliveryUndeserializableEventWhenTheEventDoesNotFitTheHandlersClass() throws Exception {
        Sent sent = fixture.dispatched(new Texted("forty-two"), COUNT, queue, List.of(60));

        fixture.publish(sent);

        awaitFailed(sent.deliveryId(), "undeserializable_event");
        assertThat(logs.lines("WARN", sent.eventId(), "cannot be read as", Numbered.class.getName()))
                .hasSize(1);
        assertThat(logs.lines()).noneMatch(l -> l.contains("forty-two"));
        assertThat(calls).hasValue(0);
        assertStillServing();
    }

    @Test
    void failsTheDeliveryUndeserializableEventWhenThePayloadMissesAPropertyInsteadOfRunningTheJobWithZero()
            throws Exception {
        Sent sent =
                fixture.dispatched(new Renamed(1), COUNT, queue, List.of(60)); // {"n":1} read as Numbered(int number)

        fixture.publish(sent);

        awaitFailed(sent.deliveryId(), "undeserializable_event");
        assertThat(logs.lines("WARN", sent.eventId(), "cannot be read as", Numbered.class.getName()))
                .hasSize(1);
        assertThat(calls).hasValue(0);
        assertStillServing();
    }

    @Test
    void failsTheDeliveryBadMessageWhenTheMessageNamesAnotherJobType() throws Exception {
        Sent sent = fixture.dispatched(new OrderPlaced(4), JOB, queue, List.of(60));
        DeliveryMessage m = sent.message();
        DeliveryMessage forged = new DeliveryMessage(
                m.eventId(), m.deliveryId(), m.dispatchId(), m.eventType(), COUNT, 1, false, null, null);

        fixture.publishRaw(queue, forged.toJson());

        awaitFailed(sent.deliveryId(), "bad_message");
        assertThat(calls).hasValue(0);
        assertStillServing();
    }

    @Test
    void cannotForgeALogLineOrFloodTheLogThroughTheJobTypeOfAMessage() throws Exception {
        Sent sent = fixture.dispatched(new OrderPlaced(5), JOB, queue, List.of(60));
        DeliveryMessage m = sent.message();
        String forgedJobType = "x\n12:00:00.000 ERROR forged line\r\u2028" + "y".repeat(1 << 20);
        DeliveryMessage forged = new DeliveryMessage(
                m.eventId(), m.deliveryId(), m.dispatchId(), m.eventType(), forgedJobType, 1, false, null, null);

        fixture.publishRaw(queue, forged.toJson());

        awaitFailed(sent.deliveryId(), "bad_message");
        List<String> warned = logs.lines("WARN", sent.deliveryId(), "names job type");
        assertThat(warned).hasSize(1);
        assertThat(warned.get(0))
                .contains("names job type x\\u000a12:00:00.000 ERROR forged line\\u000d\\u2028yyy")
                .contains("…(+" + (forgedJobType.length() - LogText.MAX_CHARS) + " chars)")
                .hasSizeLessThan(1_000);
        assertThat(logs.lines()).noneMatch(l -> l.startsWith("12:00:00.000 ERROR forged"));
        assertThat(logs.lines()).noneMatch(l -> l.contains("\u2028"));
        assertThat(calls).hasValue(0);
        assertStillServing();
    }
}
