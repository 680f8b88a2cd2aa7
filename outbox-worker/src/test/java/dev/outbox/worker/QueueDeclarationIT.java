package dev.outbox.worker;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outbox.api.EventType;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.QueueType;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay owns queue declaration: it declares the queues of its job routes (classic, or quorum
 * when configured), and the worker never declares one. A worker started before any relay waits for
 * its queue instead of declaring a classic one the relay's quorum declaration would then be refused
 * on (PRECONDITION_FAILED, every delivery failing {@code queue_declare_failed}). Both start orders,
 * with quorum queues, against the real relay and broker.
 */
class QueueDeclarationIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    static final PostgresSchemaExtension db = fixture.db;
    static final RabbitExtension rabbit = fixture.rabbit;

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    private final AtomicInteger handled = new AtomicInteger();

    private OutboxWorker worker(String queue) {
        return fixture.worker()
                .queue(queue, 1, 10)
                .handler("ping", OrderPlaced.class, (event, context) -> handled.incrementAndGet())
                .build();
    }

    private OutboxRelay relay(String queue) {
        return OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.job("ping", queue, RetrySchedule.seconds(1), Duration.ofSeconds(60)))
                        .build())
                .queueType(QueueType.QUORUM)
                .notifications(false)
                .build();
    }

    private UUID record(long orderId) {
        return fixture.dsl.transactionResult(tx -> fixture.outbox.record(tx.dsl(), new OrderPlaced(orderId)));
    }

    private OutboxDeliveryStatus statusOf(UUID eventId) {
        return fixture.mapped
                .select(OUTBOX_DELIVERIES.STATUS)
                .from(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.EVENT_ID.eq(eventId))
                .fetchOne(OUTBOX_DELIVERIES.STATUS);
    }

    private boolean exists(String queue) throws Exception {
        try (Connection c = rabbit.connectionFactory().newConnection();
                Channel ch = c.createChannel()) {
            ch.queueDeclarePassive(queue);
            return true;
        } catch (IOException e) {
            return false; // 404
        }
    }

    /** A quorum queue is re-declared as one without complaint, and refused as a classic one. */
    private void assertQuorum(String queue) throws Exception {
        try (Connection c = rabbit.connectionFactory().newConnection()) {
            try (Channel ch = c.createChannel()) {
                ch.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum"));
            }
            Channel classic = c.createChannel();
            assertThatThrownBy(() -> classic.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "classic")))
                    .isInstanceOf(IOException.class);
        }
    }

    @Test
    void aWorkerStartedBeforeAnyRelayWaitsForTheQueueAndTheRelayDeclaresItAsQuorum() throws Exception {
        String queue = rabbit.queue("worker-first");
        try (OutboxWorker worker = worker(queue)) {
            worker.start(); // returns at once: the queue does not exist yet
            Thread.sleep(500); // kept: time for a wrong declaration to happen, which must not
            assertThat(exists(queue)).as("the worker declared nothing").isFalse();

            UUID eventId = record(1);
            try (OutboxRelay relay = relay(queue)) {
                relay.runOnce();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> statusOf(eventId) == OutboxDeliveryStatus.completed);
            assertThat(handled).hasValue(1);
        }
        assertQuorum(queue);
    }

    /**
     * However long a worker has waited for its queue, it asks again at least once a second: its
     * backoff (100 ms, doubling) stops at 1 s. Six and a half seconds in, a backoff doubling up to 5 s
     * has asked at 6.3 s and asks next at 11.3 s.
     */
    @Test
    void aWorkerThatHasWaitedLongForItsQueueConsumesItWithinASecondOrSoOfItsDeclaration() throws Exception {
        String queue = rabbit.queue("worker-long-first");
        try (OutboxWorker worker = worker(queue)) {
            worker.start();
            Thread.sleep(6_500); // kept: the long wait is what is tested (see above)
            UUID eventId = record(3);
            try (OutboxRelay relay = relay(queue)) {
                relay.runOnce();
            }
            long declared = System.nanoTime();
            await().atMost(Duration.ofSeconds(30)).until(() -> statusOf(eventId) == OutboxDeliveryStatus.completed);
            assertThat(Duration.ofNanos(System.nanoTime() - declared)).isLessThan(Duration.ofSeconds(3));
        }
    }

    @Test
    void aWorkerStartedAfterTheRelayConsumesTheQuorumQueueItDeclared() throws Exception {
        String queue = rabbit.queue("relay-first");
        UUID eventId = record(2);
        try (OutboxRelay relay = relay(queue)) {
            relay.runOnce();
        }
        assertQuorum(queue);
        try (OutboxWorker worker = worker(queue)) {
            worker.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> statusOf(eventId) == OutboxDeliveryStatus.completed);
        }
        assertThat(handled).hasValue(1);
    }

    @Test
    void aWorkerStoppedWhileWaitingForItsQueueStopsAtOnce() throws Exception {
        String queue = rabbit.queue("never-declared");
        OutboxWorker worker = worker(queue);
        worker.start();
        long started = System.nanoTime();
        worker.close();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        assertThat(exists(queue)).isFalse();
    }
}
