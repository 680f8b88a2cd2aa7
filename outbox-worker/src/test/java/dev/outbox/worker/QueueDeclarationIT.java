package dev.outbox.worker;

import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outbox.api.EventType;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.WorkerFixture.Sent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The worker declares a queue that does not exist yet, and uses an existing one as it is. */
class QueueDeclarationIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    static WorkerFixture fixture;

    @BeforeAll
    static void setUp() throws Exception {
        fixture = new WorkerFixture(db, rabbit);
    }

    @AfterAll
    static void tearDown() throws Exception {
        fixture.close();
    }

    private void assertConsumes(String queue) throws Exception {
        try (OutboxWorker worker = fixture.worker().queue(queue, 1, 1)
                .handler("ping", OrderPlaced.class, (event, context) -> {}).build()) {
            worker.start();
            Sent sent = fixture.dispatched(new OrderPlaced(1), "ping", queue, List.of());
            fixture.publish(sent);
            await().atMost(Duration.ofSeconds(10)).until(() -> fixture.status(sent.deliveryId()) == OutboxDeliveryStatus.completed);
        }
    }

    @Test
    void declaresADurableQueueThatDoesNotExistYet() throws Exception {
        assertConsumes(rabbit.queue("missing"));
    }

    @Test
    void consumesAnExistingQuorumQueueAsItIs() throws Exception {
        String queue = rabbit.queue("quorum");
        try (Connection c = rabbit.connectionFactory().newConnection(); Channel ch = c.createChannel()) {
            ch.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum"));
        }
        assertConsumes(queue);
    }
}
