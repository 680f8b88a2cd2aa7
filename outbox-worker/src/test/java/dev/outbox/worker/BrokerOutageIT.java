package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TcpProxy;
import dev.outbox.worker.WorkerFixture.Sent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worker's broker connection cut (and refused for a while): it reconnects, its consumer is
 * back, and messages published afterwards are consumed and completed; the channel of the lost
 * connection shuts down without waiting on a blocked dispatcher.
 */
class BrokerOutageIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    static final PostgresSchemaExtension db = fixture.db;
    static final RabbitExtension rabbit = fixture.rabbit;

    static final String JOB = "refund";

    @EventType("order.refunded")
    record OrderRefunded(long orderId) {}

    TcpProxy proxy;
    LogCapture logs;
    String queue;

    @BeforeEach
    void proxy() throws Exception {
        proxy = TcpProxy.toAmqpUri(rabbit.uri());
        queue = fixture.queue("outage");
        logs = new LogCapture();
    }

    @AfterEach
    void close() {
        logs.close();
        proxy.close();
    }

    private OutboxWorker worker(JobHandler<OrderRefunded> handler) {
        return OutboxWorker.builder()
                .dataSource(db.dataSource())
                .amqpUri(proxy.amqpUri(rabbit.uri())) // the default: automatic recovery
                .tables(db.tables())
                .clock(fixture.clock)
                .shutdownHook(false)
                .shutdownGrace(Duration.ofSeconds(5))
                .queue(queue, 2, 10)
                .handler(JOB, OrderRefunded.class, handler)
                .build();
    }

    private Sent send(long orderId) throws Exception {
        Sent sent = fixture.dispatched(new OrderRefunded(orderId), JOB, queue, List.of(60));
        fixture.publish(sent);
        return sent;
    }

    private void awaitCompleted(Sent sent) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> fixture.status(sent.deliveryId()) == OutboxDeliveryStatus.completed);
    }

    @Test
    void startWaitsForABrokerThatRefusesConnectionsAndConsumesOnceItAnswers() throws Exception {
        proxy.down();
        try (OutboxWorker worker = worker((event, context) -> {})) {
            CompletableFuture<Void> started = CompletableFuture.runAsync(worker::start);
            Thread.sleep(1_500); // kept: time for start() to return, which it must not
            assertThat(started)
                    .as("start() waits while the broker refuses connections")
                    .isNotDone();

            proxy.up();
            started.get(15, TimeUnit.SECONDS);
            awaitCompleted(send(1));
        }
    }

    @Test
    void consumesAndCompletesWhatIsPublishedAfterItsConnectionWasCut() throws Exception {
        try (OutboxWorker worker = worker((event, context) -> {})) {
            worker.start();
            awaitCompleted(send(1));

            proxy.down();
            Sent during = send(2); // waits in the queue: nobody consumes it
            Thread.sleep(1_000); // kept: the outage lasts a second
            proxy.up();
            long up = System.nanoTime();
            Sent after = send(3);

            awaitCompleted(during);
            System.out.printf(
                    "outage-recovery: worker, broker connection down 1 s: completed %d ms after it came back%n",
                    (System.nanoTime() - up) / 1_000_000);
            awaitCompleted(after);
        }
        assertThat(logs.lines()).noneMatch(line -> line.contains("didn't shutdown"));
    }

    @Test
    void aHandlerStillRunningWhenTheConnectionIsCutBlocksNeitherTheShutdownNorTheRecovery() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (OutboxWorker worker = worker((event, context) -> {
            if (event.orderId() == 1) {
                running.countDown();
                release.await(30, TimeUnit.SECONDS);
            }
        })) {
            worker.start();
            Sent slow = send(1);
            assertThat(running.await(15, TimeUnit.SECONDS)).isTrue();

            proxy.cut(); // the connection drops under the running job
            Sent after = send(2);

            awaitCompleted(after);
            release.countDown();
            awaitCompleted(slow); // its outcome is written; its ack on the dead channel is dropped
        }
        assertThat(logs.lines()).noneMatch(line -> line.contains("didn't shutdown"));
    }
}
