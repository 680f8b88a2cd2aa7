package dev.outbox.worker;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.internal.DeliveryMessage;
import dev.outbox.delivery.internal.DeliveryRows;
import dev.outbox.delivery.internal.RetryPolicy;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.InsertSetMoreStep;
import org.jooq.InsertSetStep;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Plays the relay's part for the worker's tests: records events, inserts deliveries in status
 * dispatched (as T2 would), publishes their messages exactly as the relay does, and dispatches a
 * delivery again after a retry or a timeout.
 *
 * <p>As the class's extension, beside the relay tests' {@code RelayFixture}, it owns a migrated
 * schema and a broker of the class's own (so their order is its own) and opens after them:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final WorkerFixture fixture = new WorkerFixture();
 * }</pre>
 *
 * A test that wants it for one method only opens it on extensions of its own with
 * {@code try (WorkerFixture fixture = new WorkerFixture(db, rabbit))}.
 */
final class WorkerFixture implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

    /** The fixed clock of these tests. */
    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    /** A dispatched delivery as the relay would have sent it. */
    record Sent(
            UUID eventId,
            UUID deliveryId,
            UUID dispatchId,
            String eventType,
            String jobType,
            String queue,
            int attempt,
            boolean lastAttempt) {

        DeliveryMessage message() {
            return new DeliveryMessage(
                    eventId, deliveryId, dispatchId, eventType, jobType, attempt, lastAttempt, null, null);
        }
    }

    final PostgresSchemaExtension db;
    final RabbitExtension rabbit;
    final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    /** Set when the fixture opens (at once, or in {@link #beforeAll} as an extension). */
    DSLContext dsl;

    DSLContext mapped;
    Outbox outbox;
    private @Nullable Connection connection;
    private Channel channel;
    /** Whether the fixture runs the two extensions itself (registered as the class's extension). */
    private final boolean owner;

    /** The class's extension, on a migrated schema and a broker of its own. */
    WorkerFixture() {
        this.db = PostgresSchemaExtension.migrated();
        this.rabbit = new RabbitExtension();
        this.owner = true;
    }

    /** Opened at once, on extensions the test class runs. */
    WorkerFixture(PostgresSchemaExtension db, RabbitExtension rabbit) throws Exception {
        this.db = db;
        this.rabbit = rabbit;
        this.owner = false;
        open();
    }

    private void open() throws Exception {
        this.dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        this.mapped = OutboxDsl.mapped(dsl, db.tables());
        this.outbox = Outbox.builder()
                .tables(db.tables())
                .clock(clock)
                .notifications(false)
                .build();
        this.connection = rabbit.connectionFactory().newConnection("worker-test-publisher");
        this.channel = connection.createChannel();
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (owner) {
            db.beforeAll(context);
            rabbit.beforeAll(context);
        }
        open();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            close();
        } finally {
            if (owner) {
                try {
                    rabbit.afterAll(context);
                } finally {
                    db.afterAll(context);
                }
            }
        }
    }

    OutboxTables tables() {
        return db.tables();
    }

    /** A durable queue unique to the test class. */
    String queue(String name) throws IOException {
        String queue = rabbit.queue(name);
        synchronized (channel) {
            channel.queueDeclare(queue, true, false, false, null);
        }
        return queue;
    }

    /** Messages ready in {@code queue} (neither delivered nor unacknowledged). */
    long ready(String queue) throws IOException {
        synchronized (channel) {
            return channel.queueDeclarePassive(queue).getMessageCount();
        }
    }

    /** A worker builder on this schema and broker, with the fixed clock and no shutdown hook. */
    OutboxWorker.Builder worker() {
        return OutboxWorker.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .clock(clock)
                .shutdownHook(false)
                .shutdownGrace(java.time.Duration.ofSeconds(5));
    }

    /** Records {@code event} and inserts its delivery, dispatched for the first time. */
    Sent dispatched(Object event, String jobType, String queue, List<Integer> delays) {
        return dsl.transactionResult(tx -> {
            UUID eventId = outbox.record(tx.dsl(), event);
            OutboxDeliveriesRecord row =
                    dispatchedRow(eventId, jobType, queue, delays).insert(OutboxDsl.mapped(tx.dsl(), tables()));
            UUID deliveryId = row.getId();
            UUID dispatchId = row.getDispatchId();
            String eventType = outbox.eventTypes().nameOf(event.getClass());
            return new Sent(
                    eventId,
                    deliveryId,
                    dispatchId,
                    eventType,
                    jobType,
                    queue,
                    1,
                    RetryPolicy.lastAttempt(1, delays.size()));
        });
    }

    /** Records {@code events} and inserts one dispatched delivery for each, in multi-row statements. */
    List<Sent> dispatchedInBulk(List<?> events, String jobType, String queue) {
        return dsl.transactionResult(tx -> {
            List<UUID> eventIds = outbox.recordAll(tx.dsl(), events);
            String eventType = outbox.eventTypes().nameOf(events.get(0).getClass());
            List<Sent> sent = new ArrayList<>(events.size());
            DSLContext ctx = OutboxDsl.mapped(tx.dsl(), tables());
            for (int from = 0; from < eventIds.size(); from += 1_000) {
                InsertSetStep<OutboxDeliveriesRecord> insert = ctx.insertInto(OUTBOX_DELIVERIES);
                InsertSetMoreStep<OutboxDeliveriesRecord> rows = null;
                for (UUID eventId : eventIds.subList(from, Math.min(eventIds.size(), from + 1_000))) {
                    OutboxDeliveriesRecord row =
                            dispatchedRow(eventId, jobType, queue, List.of()).record();
                    rows = rows == null ? insert.set(row) : rows.newRecord().set(row);
                    sent.add(new Sent(eventId, row.getId(), row.getDispatchId(), eventType, jobType, queue, 1, true));
                }
                rows.execute();
            }
            return sent;
        });
    }

    /** A delivery of {@code eventId} dispatched for the first time now, as T2 would, due in 300 s. */
    private DeliveryRows dispatchedRow(UUID eventId, String jobType, String queue, List<Integer> delays) {
        OffsetDateTime now = now();
        return DeliveryRows.delivery(OutboxDeliveryStatus.dispatched, now)
                .event(eventId)
                .jobType(jobType)
                .queue(queue)
                .retryDelays(delays)
                .timeoutSeconds(300)
                .availableAt(now)
                .dispatchedAt(now)
                .createdAt(now);
    }

    /**
     * Dispatches a delivery again, as T2 would after a retry (from pending) or as T4 then T2 would
     * after a timeout (from dispatched): a new dispatch id and one more attempt.
     */
    Sent dispatchAgain(Sent previous) {
        OffsetDateTime now = now();
        OutboxDeliveriesRecord row = mapped.update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.dispatched)
                .set(OUTBOX_DELIVERIES.DISPATCH_ID, UUID.randomUUID())
                .set(OUTBOX_DELIVERIES.ATTEMPTS, OUTBOX_DELIVERIES.ATTEMPTS.plus(1))
                .set(OUTBOX_DELIVERIES.DISPATCHED_AT, now)
                .set(OUTBOX_DELIVERIES.STARTED_AT, (OffsetDateTime) null) // a new dispatch waits to be picked up
                .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, now.plusSeconds(300))
                .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                .where(OUTBOX_DELIVERIES.ID.eq(previous.deliveryId()))
                .and(OUTBOX_DELIVERIES.STATUS.in(OutboxDeliveryStatus.pending, OutboxDeliveryStatus.dispatched))
                .returning()
                .fetchOne();
        if (row == null) {
            throw new IllegalStateException("delivery " + previous.deliveryId() + " cannot be dispatched again");
        }
        return new Sent(
                previous.eventId(),
                previous.deliveryId(),
                row.getDispatchId(),
                previous.eventType(),
                previous.jobType(),
                previous.queue(),
                row.getAttempts(),
                RetryPolicy.lastAttempt(row.getAttempts(), row.getRetryDelaysSeconds().length));
    }

    /** Publishes the message of {@code sent} as the relay does. */
    void publish(Sent sent) throws IOException {
        DeliveryMessage m = sent.message();
        synchronized (channel) {
            channel.basicPublish("", sent.queue(), m.properties(), m.toJson());
        }
    }

    /** Inserts a dispatched delivery of a publish route to {@code exchange} for a new event, as T2 would leave it. */
    Sent dispatchedPublish(Object event, String exchange, String queue) {
        return dsl.transactionResult(tx -> {
            UUID eventId = outbox.record(tx.dsl(), event);
            OutboxDeliveriesRecord row = dispatchedRow(eventId, "publish-" + exchange, queue, List.of())
                    .publish(exchange, "key")
                    .insert(OutboxDsl.mapped(tx.dsl(), tables()));
            return new Sent(
                    eventId,
                    row.getId(),
                    row.getDispatchId(),
                    outbox.eventTypes().nameOf(event.getClass()),
                    row.getJobType(),
                    queue,
                    1,
                    true);
        });
    }

    /** Publishes a message to {@code queue} as the relay would, with the given trace context in its body. */
    void publish(Sent sent, String traceparent) throws IOException {
        DeliveryMessage m = new DeliveryMessage(
                sent.eventId(),
                sent.deliveryId(),
                sent.dispatchId(),
                sent.eventType(),
                sent.jobType(),
                sent.attempt(),
                sent.lastAttempt(),
                traceparent,
                null);
        synchronized (channel) {
            channel.basicPublish("", sent.queue(), m.properties(), m.toJson());
        }
    }

    /** Publishes any body to {@code queue}. */
    void publishRaw(String queue, byte[] body) throws IOException {
        synchronized (channel) {
            channel.basicPublish(
                    "",
                    queue,
                    new AMQP.BasicProperties.Builder().deliveryMode(2).build(),
                    body);
        }
    }

    OutboxDeliveriesRecord row(UUID deliveryId) {
        OutboxDeliveriesRecord r = mapped.selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(deliveryId))
                .fetchOne();
        if (r == null) {
            throw new IllegalStateException("no delivery " + deliveryId);
        }
        return r;
    }

    OutboxDeliveryStatus status(UUID deliveryId) {
        return row(deliveryId).getStatus();
    }

    static OffsetDateTime now() {
        return NOW.atOffset(ZoneOffset.UTC);
    }

    @Override
    public void close() throws IOException {
        Connection c = connection;
        connection = null;
        if (c != null) {
            c.close();
        }
    }
}
