package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventSerializer;
import dev.outbox.api.EventType;
import dev.outbox.api.Outbox;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker lets its serializer ready the reading of each handler's event class when it starts,
 * before its first message: the first messages then do not wait, every handler thread behind one
 * lock, for what the first read would build.
 */
class ReadingPreparedIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    @EventType("invoice.sent")
    record InvoiceSent(long invoiceId) {}

    /** Jackson's serializer, telling what it was asked in order. */
    static final class Recording implements EventSerializer {
        final EventSerializer jackson = EventSerializer.jackson();
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public String serialize(String eventType, Object event) {
            return jackson.serialize(eventType, event);
        }

        @Override
        public <T> T deserialize(String json, Class<T> type) {
            calls.add("deserialize " + type.getSimpleName());
            return jackson.deserialize(json, type);
        }

        @Override
        public void prepare(Class<?> type) {
            calls.add("prepare " + type.getSimpleName());
            jackson.prepare(type);
        }
    }

    @Test
    void aStartingWorkerPreparesEachHandlersEventClassOnceBeforeItReadsAMessage() {
        String queue = rabbit.queue("prepared");
        Recording serializer = new Recording();
        DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        Outbox outbox =
                Outbox.builder().tables(db.tables()).notifications(false).build();
        dsl.transaction(tx -> outbox.record(tx.dsl(), new OrderPlaced(1)));
        try (OutboxRelay relay = OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.job("ship", queue, RetrySchedule.seconds(1), Duration.ofSeconds(60)))
                        .build())
                .notifications(false)
                .build()) {
            relay.runOnce(); // the queue and its message are there before the worker starts
        }
        try (OutboxWorker worker = OutboxWorker.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .serializer(serializer)
                .shutdownHook(false)
                .queue(queue, 2, 10)
                .handler("ship", OrderPlaced.class, (event, context) -> {})
                .handler("bill", InvoiceSent.class, (event, context) -> {})
                .build()) {
            worker.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> serializer.calls.contains("deserialize OrderPlaced"));
        }
        assertThat(serializer.calls.subList(0, 2))
                .containsExactlyInAnyOrder("prepare OrderPlaced", "prepare InvoiceSent");
        assertThat(serializer.calls.subList(2, serializer.calls.size())).containsOnly("deserialize OrderPlaced");
    }
}
