package dev.outbox.examples;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.example.jobs.JobService;
import com.example.orders.OrdersApp;
import com.example.relay.RelayApp;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxDsl;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.Routes;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.OutboxWorker;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's getting-started, run as written: the application migrates (its Flyway, then ours)
 * and records an order; the embedded relay, reading the README's routes file, dispatches the job;
 * the job service's worker completes it. Only the schema and the queue name are the test's own.
 */
class GettingStartedIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @Test
    void anOrderPlacedIsRelayedAndItsConfirmationJobCompleted(@TempDir Path dir) throws IOException {
        DataSource dataSource = db.dataSource();
        OutboxTables tables = db.tables();
        String queue = rabbit.queue("emails");
        Routes routes = Routes.fromFile(routesFileWithQueue(dir, queue));

        OrdersApp.migrate(dataSource, tables);
        DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
        long orderId = OrdersApp.placeOrder(
                dsl, Outbox.builder().tables(tables).build(), "customer-42", new BigDecimal("19.90"));

        try (OutboxRelay relay =
                        RelayApp.relay(dataSource, rabbit.uri(), tables, routes).start();
                OutboxWorker worker = JobService.worker(dataSource, rabbit.uri(), tables, queue)) {
            worker.start();
            DSLContext mapped = OutboxDsl.mapped(dsl, tables);
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(mapped.select(OUTBOX_DELIVERIES.STATUS)
                                    .from(OUTBOX_DELIVERIES)
                                    .fetch(OUTBOX_DELIVERIES.STATUS))
                            .containsExactly(OutboxDeliveryStatus.completed));
            assertThat(relay.failure()).isEmpty();
        }
        assertThat(dsl.fetchValue("select customer from orders where id = ?", orderId))
                .isEqualTo("customer-42");
    }

    @Test
    void theApplicationsMigrationsAndOursKeepTheirOwnHistories() {
        // whichever test ran first, migrating again changes nothing
        DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        OrdersApp.migrate(db.dataSource(), db.tables());
        OrdersApp.migrate(db.dataSource(), db.tables());
        assertThat(dsl.fetchCount(
                        DSL.table("flyway_schema_history"), DSL.field("success").isTrue()))
                .isEqualTo(1);
        assertThat(dsl.fetchCount(
                        DSL.table("outbox_flyway_history"),
                        DSL.field("success").isTrue(),
                        DSL.field("version").ne("0")))
                .isPositive();
    }

    /** The README's routes file, with the test's unique queue name for "emails". */
    static Path routesFileWithQueue(Path dir, String queue) throws IOException {
        String text = Files.readString(RoutesFileTest.ROUTES_FILE);
        assertThat(text).contains("queue: emails");
        return Files.writeString(dir.resolve("routes.yaml"), text.replace("queue: emails", "queue: " + queue));
    }
}
