package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.api.EventType;
import dev.outbox.relay.Events.InvoiceSent;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.testing.MeterDocs;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TcpProxy;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/** The relay's meters, read from a registry after real passes over PostgreSQL and RabbitMQ. */
class RelayMetersIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static final PostgresSchemaExtension db = fixture.db;
    static final RabbitExtension rabbit = fixture.rabbit;

    /** The tags a relay meter may carry: bounded values, never an id or a payload. */
    static final Set<String> BOUNDED_TAGS = Set.of("queue", "kind", "cause", "reason", "outcome");

    static String emails;
    static String refunds;
    static String invoices;

    final MutableClock clock = MutableClock.startingNow();
    final MeterRegistry registry = new SimpleMeterRegistry();
    Tables tables;

    @BeforeAll
    static void queues() throws Exception {
        emails = fixture.queue("emails");
        refunds = fixture.queue("refunds");
        invoices = rabbit.exchange("invoices");
        String invoiceQueue = fixture.queue("invoice-copies");
        var ch = fixture.broker().channel();
        ch.exchangeDeclare(invoices, BuiltinExchangeType.FANOUT, true);
        ch.queueDeclare(invoiceQueue, true, false, false, Map.of());
        ch.queueBind(invoiceQueue, invoices, "");
    }

    @BeforeEach
    void setUp() {
        tables = fixture.tables();
    }

    @AfterEach
    void everyMeterIsDocumentedAndItsTagsAreBounded() {
        Map<String, String> documented = MeterDocs.documented();
        List<String> ids = new ArrayList<>();
        tables.dsl()
                .selectFrom(dev.outbox.schema.Tables.OUTBOX_DELIVERIES)
                .fetch()
                .forEach(d -> {
                    ids.add(d.getId().toString());
                    ids.add(d.getEventId().toString());
                    if (d.getDispatchId() != null) {
                        ids.add(d.getDispatchId().toString());
                    }
                });
        for (Meter meter : registry.getMeters()) {
            String name = meter.getId().getName();
            assertThat(documented).as("meter %s in docs/observability.md", name).containsKey(name);
            assertThat(documented.get(name)).as("documented type of %s", name).isEqualTo(type(meter));
            for (Tag tag : meter.getId().getTags()) {
                assertThat(tag.getKey()).as("tag of %s", name).isIn(BOUNDED_TAGS);
                assertThat(tag.getValue())
                        .as("tag %s of %s", tag.getKey(), name)
                        .doesNotMatch(".*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}.*")
                        .doesNotContain("{")
                        .isNotIn(ids);
            }
        }
    }

    static String type(Meter meter) {
        return switch (meter.getId().getType()) {
            case COUNTER -> "counter";
            case TIMER -> "timer";
            case GAUGE -> "gauge";
            default -> meter.getId().getType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    OutboxRelay.Builder relay() {
        return fixture.relay(clock)
                .meterRegistry(registry)
                .gaugeInterval(Duration.ofSeconds(1))
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.job(
                                        "send-confirmation", emails, RetrySchedule.seconds(5), Duration.ofSeconds(300)))
                        .route("order.cancelled", Route.job("refund", refunds, List.of(), Duration.ofSeconds(120)))
                        .route(
                                "invoice.sent",
                                Route.publish("invoice-copy", invoices, "sent", List.of(), Duration.ofSeconds(60)))
                        .build());
    }

    double counter(String name, String... tags) {
        var c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void fiveRecordedEventsAreCountedRoutedDispatchedAndConfirmed() {
        OutboxRelay relay = fixture.closeAfterEach(relay().build());
        tables.recordAll(List.of(
                new OrderPlaced(1, BigDecimal.ONE),
                new OrderPlaced(2, BigDecimal.ONE),
                new OrderPlaced(3, BigDecimal.ONE),
                new OrderPlaced(4, BigDecimal.ONE),
                new OrderPlaced(5, BigDecimal.ONE)));

        relay.runOnce();

        assertThat(counter("outbox.relay.events.routed")).isEqualTo(5);
        assertThat(counter("outbox.relay.deliveries.dispatched", "queue", emails, "kind", "job"))
                .isEqualTo(5);
        assertThat(counter("outbox.relay.deliveries.confirmed", "queue", emails, "kind", "job"))
                .isEqualTo(5);
        assertThat(registry.find("outbox.relay.confirm.latency")
                        .tags("queue", emails)
                        .timer()
                        .count())
                .isEqualTo(5);
        assertThat(registry.find("outbox.relay.pass")
                        .tags("outcome", "busy")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(fixture.broker().take(emails, 5)).hasSize(5);
    }

    @Test
    void anIdlePassIsTimedAsIdle() {
        OutboxRelay relay = fixture.closeAfterEach(relay().build());

        relay.runOnce();
        relay.runOnce();

        assertThat(registry.find("outbox.relay.pass")
                        .tags("outcome", "idle")
                        .timer()
                        .count())
                .isEqualTo(2);
        assertThat(registry.find("outbox.relay.pass").tags("outcome", "busy").timer())
                .isNull();
    }

    @Test
    void aPublishRouteIsCountedCompletedOnItsConfirm() {
        OutboxRelay relay = fixture.closeAfterEach(relay().build());
        tables.record(new InvoiceSent(1), new InvoiceSent(2));

        relay.runOnce();

        assertThat(counter("outbox.relay.deliveries.dispatched", "queue", invoices, "kind", "publish"))
                .isEqualTo(2);
        assertThat(counter("outbox.relay.deliveries.confirmed", "queue", invoices, "kind", "publish"))
                .isEqualTo(2);
        assertThat(counter("outbox.relay.publish.completed", "queue", invoices)).isEqualTo(2);
    }

    @Test
    void aReturnedPublishIsCountedRefusedByItsCause() throws Exception {
        OutboxRelay relay = fixture.closeAfterEach(relay().build());
        relay.runOnce(); // declares the queues
        fixture.broker().channel().queueDelete(refunds); // a publish to it is now returned
        tables.record(new OrderCancelled(1), new OrderCancelled(2), new OrderPlaced(1, BigDecimal.ONE));

        relay.runOnce();

        assertThat(counter("outbox.relay.deliveries.refused", "queue", refunds, "cause", "returned"))
                .isEqualTo(2);
        assertThat(counter("outbox.relay.deliveries.confirmed", "queue", refunds, "kind", "job"))
                .isZero();
        assertThat(counter("outbox.relay.deliveries.confirmed", "queue", emails, "kind", "job"))
                .isEqualTo(1);
    }

    @Test
    void anOverdueDispatchIsCountedTimedOut() {
        OutboxRelay relay = fixture.closeAfterEach(relay().build());
        java.util.UUID taken = tables.record(new OrderCancelled(1)).get(0);
        tables.record(new OrderPlaced(1, BigDecimal.ONE), new OrderCancelled(2));
        relay.runOnce();
        tables.pickUp(clock, d -> d.getEventId().equals(taken)); // a worker took one of the two refunds
        clock.advance(Duration.ofSeconds(120));

        relay.runOnce();

        assertThat(counter("outbox.relay.deliveries.timed.out", "queue", refunds))
                .isEqualTo(1);
        assertThat(counter("outbox.relay.deliveries.timed.out.unstarted", "queue", refunds))
                .isEqualTo(1);
        assertThat(counter("outbox.relay.deliveries.timed.out", "queue", emails))
                .isZero();
    }

    @Test
    void theGaugesShowPendingReadyAgeUnroutedAndFailedDeliveries() throws Exception {
        try (TcpProxy brokerProxy = TcpProxy.toAmqpUri(rabbit.uri())) {
            ConnectionFactory amqp = rabbit.connectionFactory();
            amqp.setPort(brokerProxy.port());
            OutboxRelay relay =
                    fixture.closeAfterEach(relay().connectionFactory(amqp).build());
            relay.runOnce(); // declares the queues
            fixture.broker().channel().queueDelete(refunds);
            tables.record(new OrderCancelled(9)); // no retry: returned, it fails with publish_failed
            relay.runOnce();
            brokerProxy.down(); // the next pass routes, then cannot dispatch: three deliveries stay pending
            tables.record(
                    new OrderPlaced(1, BigDecimal.ONE),
                    new OrderPlaced(2, BigDecimal.ONE),
                    new OrderPlaced(3, BigDecimal.ONE));
            tables.record(new OrderShipped(1), new OrderShipped(2)); // no route: they stay unrouted
            try {
                relay.runOnce();
            } catch (BrokerUnavailableException expected) {
                // what the test wants: routed, not dispatched
            }
            clock.advance(Duration.ofSeconds(42));

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(gauge("outbox.relay.deliveries.pending", "queue", emails))
                        .isEqualTo(3);
                assertThat(gauge("outbox.relay.deliveries.ready", "queue", emails))
                        .isEqualTo(3);
                assertThat(gauge("outbox.relay.oldest.ready.age", "queue", emails))
                        .isBetween(42.0, 44.0);
                assertThat(gauge("outbox.relay.deliveries.pending", "queue", refunds))
                        .isZero();
                assertThat(gauge("outbox.relay.oldest.ready.age", "queue", invoices))
                        .isZero();
                assertThat(gauge("outbox.relay.events.unrouted")).isEqualTo(2);
                assertThat(gauge("outbox.relay.deliveries.failed", "reason", "publish_failed"))
                        .isEqualTo(1);
                assertThat(gauge("outbox.relay.deliveries.failed", "reason", "timeout"))
                        .isZero();
            });
        }
    }

    @Test
    void theGaugesAreNaNWhileTheDatabaseCannotBeReadAndComeBackAfter() throws Exception {
        try (TcpProxy dbProxy = TcpProxy.toJdbcUrl(db.server().jdbcUrl())) {
            PGSimpleDataSource proxied = new PGSimpleDataSource();
            proxied.setURL(dbProxy.jdbcUrl(db.server().jdbcUrl()));
            proxied.setUser(db.server().user());
            proxied.setPassword(db.server().password());
            proxied.setConnectTimeout(2);
            fixture.closeAfterEach(relay().dataSource(proxied).build());
            tables.record(new OrderShipped(1));
            await().atMost(Duration.ofSeconds(20)).until(() -> gauge("outbox.relay.events.unrouted") == 1);

            dbProxy.down();
            await().atMost(Duration.ofSeconds(20)).until(() -> Double.isNaN(gauge("outbox.relay.events.unrouted")));
            assertThat(gauge("outbox.relay.deliveries.pending", "queue", emails))
                    .isNaN();

            dbProxy.up();
            await().atMost(Duration.ofSeconds(20)).until(() -> gauge("outbox.relay.events.unrouted") == 1);
        }
    }

    @Test
    void withoutARegistryNothingIsRegistered() {
        OutboxRelay relay = fixture.closeAfterEach(fixture.relay(clock)
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.job("send-confirmation", emails, List.of(), Duration.ofSeconds(300)))
                        .build())
                .build());
        tables.record(new OrderPlaced(1, BigDecimal.ONE));

        relay.runOnce();

        assertThat(registry.getMeters()).isEmpty();
    }

    double gauge(String name, String... tags) {
        var g = registry.find(name).tags(tags).gauge();
        assertThat(g).as("gauge %s %s", name, String.join(",", tags)).isNotNull();
        return g.value();
    }

    /** An event no route takes. */
    @EventType("order.shipped")
    record OrderShipped(long orderId) {}
}
