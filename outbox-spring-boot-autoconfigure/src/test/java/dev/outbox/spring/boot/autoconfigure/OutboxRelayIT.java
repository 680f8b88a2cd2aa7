package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.Outbox;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Routes;
import dev.outbox.spring.boot.autoconfigure.OutboxAutoConfigurationIT.OrderPlaced;
import dev.outbox.spring.boot.autoconfigure.OutboxAutoConfigurationIT.Orders;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The relay inside real Boot applications, on the real PostgreSQL and RabbitMQ, connected through
 * Boot's {@code spring.rabbitmq.*}: an event recorded in a {@code @Transactional} method is routed and
 * published, with the broker's confirm, by the embedded relay and completed by a handler bean of the
 * same application; routes come from a {@code Routes} bean or from {@code outbox.relay.routes-file};
 * two applications with the relay on deliver each event exactly once.
 */
class OutboxRelayIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    static final String CONFIRMATIONS = rabbit.queue("relay-confirmations");
    static final String INVOICES = rabbit.queue("relay-invoices");

    /** Handler calls by order id, over every application of a test. */
    static final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    /** A handler of OutboxAutoConfigurationIT's order event that counts its calls. */
    static OutboxJobHandler<OrderPlaced> counting(String jobType, String queue) {
        return OutboxJobHandler.of(
                jobType,
                OrderPlaced.class,
                queue,
                (order, context) -> calls.computeIfAbsent(order.orderId(), id -> new AtomicInteger())
                        .incrementAndGet());
    }

    /** Records orders in {@code @Transactional} (OutboxAutoConfigurationIT's service), relays, and runs its own jobs. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Shop {
        @Bean
        Orders orders(DSLContext dsl, Outbox outbox) {
            return new Orders(dsl, outbox);
        }

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    /** The routes are a bean. */
    @Configuration(proxyBeanMethods = false)
    static class App extends Shop {
        @Bean
        Routes orderRoutes() {
            return Routes.builder()
                    .job(
                            "order.placed",
                            "send-confirmation",
                            CONFIRMATIONS,
                            RetrySchedule.seconds(5, 30),
                            Duration.ofMinutes(5))
                    .build();
        }

        @Bean
        OutboxJobHandler<OrderPlaced> sendConfirmation() {
            return counting("send-confirmation", CONFIRMATIONS);
        }
    }

    /** The routes come from outbox.relay.routes-file instead. */
    @Configuration(proxyBeanMethods = false)
    static class FileRoutedApp extends Shop {
        @Bean
        OutboxJobHandler<OrderPlaced> sendInvoice() {
            return counting("send-invoice", INVOICES);
        }
    }

    private static String[] withRelay(String... extra) {
        List<String> properties = new ArrayList<>(List.of("outbox.relay.enabled=true"));
        properties.addAll(List.of(extra));
        return BootApps.withBroker(rabbit, properties.toArray(String[]::new));
    }

    private static void place(ConfigurableApplicationContext context, String orderId) {
        context.getBean(Orders.class).place(orderId, false);
    }

    private static String status(String orderId) {
        return BootApps.count(
                                db,
                                "outbox_deliveries",
                                "status = 'completed' and event_id in (select id from " + db.schema()
                                        + ".outbox_events where payload->>'orderId' = '" + orderId + "')")
                        == 1
                ? "completed"
                : "not completed";
    }

    /** The publishes of the confirmations queue that the broker confirmed, by the relay's meter (the relay service's name). */
    private static double confirmed(MeterRegistry registry) {
        return registry.find("outbox.relay.deliveries.confirmed").tag("queue", CONFIRMATIONS).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    private static int calls(String orderId) {
        AtomicInteger n = calls.get(orderId);
        return n == null ? 0 : n.get();
    }

    @Test
    void anEventRecordedInATransactionalMethodIsRelayedWithAConfirmAndItsJobCompleted() {
        try (ConfigurableApplicationContext context = BootApps.start(db, App.class, withRelay())) {
            assertThat(context.getBean(OutboxRelayLifecycle.class).isRunning()).isTrue();
            place(context, "r-1");

            await().atMost(Duration.ofSeconds(20)).until(() -> status("r-1").equals("completed"));
            assertThat(calls("r-1")).isEqualTo(1);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            // the broker's confirm may reach the relay after the worker has completed the job
            await().atMost(Duration.ofSeconds(10)).until(() -> confirmed(registry) == 1.0);
            assertThat(BootApps.count(
                            db,
                            "outbox_deliveries",
                            "attempts = 1 and event_id in (select id from " + db.schema()
                                    + ".outbox_events where payload->>'orderId' = 'r-1')"))
                    .isEqualTo(1);
            OutboxHealthCheck.Result health =
                    context.getBean(OutboxHealth.class).check();
            assertThat(health.details().get("relay")).isEqualTo(Map.of("status", "UP", "running", true));
        }
    }

    @Test
    void theRoutesMayComeFromARoutesFile(@TempDir Path dir) throws Exception {
        Path routes = Files.writeString(dir.resolve("routes.yaml"), """
                routes:
                  order.placed:
                    - job: send-invoice
                      queue: %s
                      retryDelaysSeconds: [5]
                      deliveryTimeoutSeconds: 300
                """.formatted(INVOICES));
        try (ConfigurableApplicationContext context =
                BootApps.start(db, FileRoutedApp.class, withRelay("outbox.relay.routes-file=" + routes))) {
            place(context, "b-1");

            await().atMost(Duration.ofSeconds(20)).until(() -> status("b-1").equals("completed"));
            assertThat(calls("b-1")).isEqualTo(1);
        }
    }

    @Test
    void twoApplicationsWithTheRelayOnDeliverEachEventExactlyOnce() {
        int events = 200;
        try (ConfigurableApplicationContext one = BootApps.start(db, App.class, withRelay());
                ConfigurableApplicationContext two = BootApps.start(db, App.class, withRelay())) {
            for (int i = 0; i < events; i++) {
                place(i % 2 == 0 ? one : two, "twice-" + i);
            }

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> BootApps.count(
                                    db,
                                    "outbox_deliveries",
                                    "status = 'completed' and queue_name = '" + CONFIRMATIONS
                                            + "' and event_id in (select id from " + db.schema()
                                            + ".outbox_events where payload->>'orderId' like 'twice-%')")
                            == events);
            for (int i = 0; i < events; i++) {
                assertThat(calls("twice-" + i)).as("calls of twice-" + i).isEqualTo(1);
            }
            assertThat(BootApps.count(db, "outbox_deliveries", "attempts <> 1")).isZero();
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            confirmed(one.getBean(MeterRegistry.class)) + confirmed(two.getBean(MeterRegistry.class))
                                    == events);
        }
    }
}
