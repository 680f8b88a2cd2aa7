package com.example.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.example.boot.orders.Mailer;
import com.example.boot.orders.OrderService;
import com.example.boot.orders.OrdersApplication;
import dev.outbox.spring.boot.autoconfigure.OutboxRelayLifecycle;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample application deployed without the relay service: {@code outbox.relay.enabled=true} runs the
 * relay inside it with the routes of its {@code OrderRoutes} bean, so a placed order's job is routed,
 * published with the broker's confirm and completed by the application alone.
 */
@SpringBootTest(classes = OrdersApplication.class, properties = "outbox.relay.enabled=true")
class OrdersEmbeddedRelayIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @DynamicPropertySource
    static void connect(DynamicPropertyRegistry registry) {
        BootSample.connect(registry, db, rabbit, rabbit.queue("confirmations"));
    }

    @Autowired
    OrderService orders;

    @Autowired
    Mailer mailer;

    @Autowired
    OutboxRelayLifecycle relay;

    @Test
    void aPlacedOrdersJobIsRoutedAndCompletedByTheApplicationsOwnRelay() {
        assertThat(relay.isRunning()).isTrue();

        orders.place("e-1", "ed@example.com");

        await().atMost(Duration.ofSeconds(20))
                .until(() -> BootSample.status(db, "e-1").equals("completed"));
        assertThat(mailer.sent()).contains("e-1");
        assertThat(BootSample.count(
                        db,
                        "select d.attempts from {schema}.outbox_deliveries d join {schema}.outbox_events e"
                                + " on e.id = d.event_id where e.payload->>'orderId' = ?",
                        "e-1"))
                .isEqualTo(1);
    }
}
