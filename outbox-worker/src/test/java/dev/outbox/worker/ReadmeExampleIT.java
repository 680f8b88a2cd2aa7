package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.WorkerFixture.Sent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The README's worker, as written there (an AMQP URI, a retryable failure, the inbox), run end to end. */
class ReadmeExampleIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migratedWithInbox();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @EventType("order.placed")
    public record OrderPlaced(long orderId, String email) {}

    /** A mail server that is down for the first call. */
    static final class Mailer {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger sent = new AtomicInteger();

        boolean isUp() {
            return calls.incrementAndGet() > 1;
        }

        void sendConfirmation(String email, long orderId) {
            sent.incrementAndGet();
        }
    }

    @Test
    void theReadmeWorkerRetriesThenCompletesAndChargesOnceThroughTheInbox() throws Exception {
        try (WorkerFixture fixture = new WorkerFixture(db, rabbit)) {
            DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
            dsl.createTable("charges").column("order_id", SQLDataType.BIGINT).execute();
            Mailer mailer = new Mailer();
            Inbox inbox = Inbox.builder().tables(db.tables()).build();
            String emails = fixture.queue("emails");
            String billing = fixture.queue("billing");

            OutboxWorker worker = OutboxWorker.builder()
                    .dataSource(db.dataSource())
                    .amqpUri(rabbit.uri())
                    .tables(db.tables())
                    .queue(emails, QueueSettings.of(8, 200))
                    .queue(billing, 2, 20)
                    .handler("send-confirmation", OrderPlaced.class, (event, context) -> {
                        if (!mailer.isUp()) {
                            throw new RetryableOutboxException("mail server unavailable");
                        }
                        mailer.sendConfirmation(event.email(), event.orderId());
                    })
                    .handler(
                            "charge-order",
                            OrderPlaced.class,
                            (event, context) -> dsl.transaction(tx -> inbox.runOnce(
                                    tx.dsl(),
                                    "billing",
                                    context.eventId().toString(),
                                    ctx -> ctx.insertInto(DSL.table("charges"))
                                            .values(event.orderId())
                                            .execute())))
                    .shutdownGrace(Duration.ofSeconds(30))
                    .shutdownHook(false)
                    .build();
            worker.start();
            try {
                Sent mail = fixture.dispatched(
                        new OrderPlaced(7, "a@example.com"), "send-confirmation", emails, List.of(1));
                fixture.publish(mail);
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> fixture.status(mail.deliveryId()) == OutboxDeliveryStatus.pending);
                fixture.publish(fixture.dispatchAgain(mail)); // the relay's next dispatch
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> fixture.status(mail.deliveryId()) == OutboxDeliveryStatus.completed);

                Sent charge =
                        fixture.dispatched(new OrderPlaced(8, "a@example.com"), "charge-order", billing, List.of(60));
                fixture.publish(charge);
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> fixture.status(charge.deliveryId()) == OutboxDeliveryStatus.completed);
                // the same event handled again (a late duplicate, say): the inbox keeps the charge single
                boolean appliedTwice = dsl.transactionResult(tx -> inbox.runOnce(
                        tx.dsl(),
                        "billing",
                        charge.eventId().toString(),
                        ctx -> ctx.insertInto(DSL.table("charges")).values(8L).execute()));
                assertThat(appliedTwice).isFalse();
            } finally {
                worker.close();
            }

            assertThat(mailer.sent).hasValue(1);
            assertThat(dsl.fetchCount(DSL.table("charges"))).isEqualTo(1);
        }
    }
}
