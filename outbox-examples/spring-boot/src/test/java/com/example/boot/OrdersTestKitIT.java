package com.example.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.boot.orders.Mailer;
import com.example.boot.orders.OrderPlaced;
import com.example.boot.orders.OrderService;
import com.example.boot.orders.OrdersApplication;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.spring.boot.autoconfigure.OutboxJobHandler;
import dev.outbox.spring.boot.autoconfigure.OutboxProperties;
import dev.outbox.test.Delivery;
import dev.outbox.test.OutboxTestKit;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.JobRun;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The test kit in a user's {@code @SpringBootTest}: the worker is off, and the test runs the jobs its
 * code recorded synchronously, with the application's own handler beans, then asserts on them.
 */
@SpringBootTest(classes = OrdersApplication.class, properties = "outbox.worker.enabled=false")
class OrdersTestKitIT {

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
    DataSource dataSource;

    @Autowired
    OutboxProperties properties;

    @Autowired
    ObjectProvider<OutboxJobHandler<?>> handlers;

    OutboxTestKit kit;

    // snippet:boot-test-kit
    @BeforeEach
    void kit() {
        OutboxTestKit.Builder builder = OutboxTestKit.builder()
                .dataSource(dataSource)
                .tables(properties.tables())
                .routes(Routes.builder()
                        .route(
                                "boot.order.placed",
                                Route.job(
                                        "send-confirmation",
                                        "confirmations",
                                        RetrySchedule.seconds(1),
                                        Duration.ofSeconds(60)))
                        .build());
        handlers.orderedStream().forEach(handler -> register(builder, handler)); // the application's handler beans
        kit = builder.build();
    }

    private static <T> void register(OutboxTestKit.Builder builder, OutboxJobHandler<T> handler) {
        builder.handler(handler.jobType(), handler.eventClass(), handler.handler());
    }
    // end-snippet

    @Test
    void theRecordedJobRunsInTheTestsThreadWithTheApplicationsHandler() {
        orders.place("k-1", "ed@example.com");

        kit.requireRecorded(OrderPlaced.class, order -> order.orderId().equals("k-1"));
        List<JobRun> runs = kit.drain();

        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).jobType()).isEqualTo("send-confirmation");
        assertThat(kit.deliveries("send-confirmation"))
                .singleElement()
                .satisfies(delivery -> assertThat(delivery.status()).isEqualTo(Delivery.Status.COMPLETED));
        assertThat(mailer.sent()).containsExactly("k-1");
    }
}
