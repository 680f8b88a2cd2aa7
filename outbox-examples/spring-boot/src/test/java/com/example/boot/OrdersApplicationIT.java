package com.example.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.example.boot.orders.Mailer;
import com.example.boot.orders.OrderPlaced;
import com.example.boot.orders.OrderService;
import com.example.boot.orders.OrdersApplication;
import dev.outbox.api.Outbox;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.RetryableOutboxException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample application as it starts in production, with only the starter and connection
 * properties, on the real PostgreSQL and RabbitMQ: an order placed in its {@code @Transactional}
 * service is recorded with it, a relay pass dispatches the job, the handler bean runs and completes
 * it; a failing transaction leaves no event; a retryable failure of the handler retries.
 */
@SpringBootTest(classes = {OrdersApplication.class, OrdersApplicationIT.FlakyMail.class})
class OrdersApplicationIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    static final String CONFIRMATIONS = rabbit.queue("confirmations");

    /** The relay service's routes for this application (its routes file says the same). */
    static final Routes ROUTES = Routes.builder()
            .route(
                    "boot.order.placed",
                    Route.job("send-confirmation", CONFIRMATIONS, RetrySchedule.seconds(1), Duration.ofSeconds(60)))
            .build();

    @DynamicPropertySource
    static void connect(DynamicPropertyRegistry registry) {
        BootSample.connect(registry, db, rabbit, CONFIRMATIONS);
    }

    /** The mail server is down for the first confirmation of an order whose id starts with "flaky". */
    @TestConfiguration(proxyBeanMethods = false)
    static class FlakyMail {
        static final AtomicInteger failures = new AtomicInteger();

        @Bean
        @Primary
        Mailer flakyMailer() {
            return new Mailer() {
                @Override
                public void sendConfirmation(OrderPlaced order) {
                    if (order.orderId().startsWith("flaky") && failures.getAndIncrement() == 0) {
                        throw new RetryableOutboxException("mail server unavailable");
                    }
                    super.sendConfirmation(order);
                }
            };
        }
    }

    @Autowired
    OrderService orders;

    @Autowired
    Mailer mailer;

    @Autowired
    Outbox outbox;

    @Autowired
    DSLContext dsl;

    @Test
    void aPlacedOrderIsRecordedWithItAndItsJobRunsInTheHandlerBean() {
        orders.place("o-1", "ann@example.com");
        assertThat(BootSample.count(db, "select count(*) from {schema}.orders where id = ?", "o-1"))
                .isEqualTo(1);
        assertThat(BootSample.status(db, "o-1")).isEqualTo("none"); // recorded, not routed yet

        BootSample.relayOnce(db, rabbit, ROUTES);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> BootSample.status(db, "o-1").equals("completed"));
        assertThat(mailer.sent()).contains("o-1");
    }

    @Test
    void aTransactionThatFailsLeavesNeitherTheOrdersNorTheirEvents() {
        List<OrderPlaced> twice =
                List.of(new OrderPlaced("o-2", "bo@example.com"), new OrderPlaced("o-2", "bo@example.com"));
        assertThatThrownBy(() -> orders.placeAll(twice)).isInstanceOf(DuplicateKeyException.class);

        assertThat(BootSample.count(db, "select count(*) from {schema}.orders where id = ?", "o-2"))
                .isZero();
        assertThat(BootSample.count(
                        db, "select count(*) from {schema}.outbox_events where payload->>'orderId' = ?", "o-2"))
                .isZero();
    }

    @Test
    void recordingOutsideAnyTransactionIsRefused() {
        assertThatThrownBy(() -> outbox.record(dsl, new OrderPlaced("o-3", "cy@example.com")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transaction");
        assertThat(BootSample.count(
                        db, "select count(*) from {schema}.outbox_events where payload->>'orderId' = ?", "o-3"))
                .isZero();
    }

    @Test
    void aRetryableFailureOfTheHandlerRetriesAndThenCompletes() {
        orders.place("flaky-1", "di@example.com");
        BootSample.relayOnce(db, rabbit, ROUTES);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> BootSample.status(db, "flaky-1").equals("pending"));

        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(300))
                .until(() -> {
                    BootSample.relayOnce(db, rabbit, ROUTES); // the retry is due 1 s after the failure
                    return BootSample.status(db, "flaky-1").equals("completed");
                });
        assertThat(BootSample.count(
                        db,
                        "select d.attempts from {schema}.outbox_deliveries d join {schema}.outbox_events e"
                                + " on e.id = d.event_id where e.payload->>'orderId' = ?",
                        "flaky-1"))
                .isEqualTo(2);
        assertThat(mailer.sent()).contains("flaky-1");
    }
}
