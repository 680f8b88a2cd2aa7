package dev.outbox.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.outbox.api.Outbox;
import dev.outbox.relay.Routes;
import dev.outbox.test.Delivery;
import dev.outbox.test.OutboxTestKit;
import dev.outbox.test.RecordedEvent;
import dev.outbox.test.TestClock;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.worker.JobRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's own outbox, checked with the users' test kit (outbox-testkit): what placing an order
 * records, and what its routes file and its handlers — the very objects its worker registers — make
 * of each order, synchronously, without a broker.
 */
class DemoOutboxTest {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @TempDir
    static Path dir;

    private static Routes routes;

    private final TestClock clock = TestClock.startingNow();
    private DSLContext dsl;
    private Outbox outbox;
    private OutboxTestKit kit;

    @BeforeAll
    static void migrateAndReadTheRoutesFile() throws Exception {
        Demo.migrate(db.dataSource(), db.tables());
        Path file = dir.resolve("routes.yaml");
        Files.writeString(file, Demo.routesFile("emails", "payments", "orders"));
        routes = Routes.fromFile(file);
    }

    @BeforeEach
    void clean() throws SQLException {
        db.truncate();
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        dsl.truncate(DSL.table(DSL.name(db.schema(), "orders"))).execute();
        outbox = Outbox.builder().tables(db.tables()).notifications(false).build();
        // snippet:java-test-kit
        kit = OutboxTestKit.builder()
                .dataSource(db.dataSource())
                .tables(db.tables())
                .routes(routes) // the routes the relay reads
                .handler("send-confirmation", OrderPlaced.class, Demo.SEND_CONFIRMATION) // the worker's own handlers
                .handler("charge-card", OrderPlaced.class, Demo.CHARGE_CARD)
                .clock(clock)
                .build();
        // end-snippet
    }

    @Test
    void placingAnOrderRecordsItsEventInTheSameTransaction() {
        Demo.placeOrder(dsl, outbox, db.schema(), 42);

        // snippet:java-test-recorded
        RecordedEvent<OrderPlaced> placed = kit.requireRecorded(OrderPlaced.class, order -> order.orderId() == 42);
        assertThat(placed.event().customer()).isEqualTo("customer-5");
        // end-snippet
        assertThat(dsl.fetchCount(
                        DSL.table(DSL.name(db.schema(), "orders")),
                        DSL.field("id").eq(42L)))
                .isEqualTo(1);
    }

    @Test
    void aRolledBackOrderRecordsNothing() {
        try {
            dsl.transaction(tx -> {
                outbox.record(
                        tx.dsl(), new OrderPlaced(9, "customer-9", java.math.BigDecimal.TEN, java.time.Instant.now()));
                kit.requireRecorded(
                        tx.dsl(), OrderPlaced.class, order -> order.orderId() == 9); // seen inside the transaction
                throw new IllegalStateException("payment provider refused the order");
            });
        } catch (IllegalStateException expected) {
            // the business change and its event roll back together
        }
        kit.requireNotRecorded(OrderPlaced.class);
    }

    @Test
    void anOrderGetsAConfirmationAChargeAndAPublishedEvent() {
        Demo.placeOrder(dsl, outbox, db.schema(), 1);

        // snippet:java-test-drain
        kit.drain(); // route, then run the handlers for what is ready, until nothing is
        UUID eventId = kit.requireRecorded(OrderPlaced.class, order -> order.orderId() == 1)
                .id();
        assertThat(kit.requireDelivery(eventId, "send-confirmation").status()).isEqualTo(Delivery.Status.COMPLETED);
        assertThat(kit.requireDelivery(eventId, "charge-card").status()).isEqualTo(Delivery.Status.COMPLETED);
        // end-snippet
        // the publish route is the relay's with a broker: without one it waits
        assertThat(kit.requireDelivery(eventId, "order-events").status()).isEqualTo(Delivery.Status.PENDING);
    }

    @Test
    void aBusyMailServerRetriesTheConfirmationAfterTheRoutesFirstDelay() {
        Demo.placeOrder(dsl, outbox, db.schema(), 13);
        UUID eventId = kit.requireRecorded(OrderPlaced.class, order -> order.orderId() == 13)
                .id();

        kit.drain();
        Delivery waiting = kit.requireDelivery(eventId, "send-confirmation");
        assertThat(waiting.status()).isEqualTo(Delivery.Status.PENDING);
        assertThat(waiting.attempts()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(1)); // retryDelaysSeconds: [1, 1, 2]
        assertThat(kit.runJobs())
                .extracting(JobRun::jobType, JobRun::attempt, JobRun::outcome)
                .containsExactly(tuple("send-confirmation", 2, JobRun.Outcome.COMPLETED));
    }

    @Test
    void aDeclinedCardFailsTheChargeAtOnceAndLeavesTheConfirmationAlone() {
        Demo.placeOrder(dsl, outbox, db.schema(), 57);
        UUID eventId = kit.requireRecorded(OrderPlaced.class, order -> order.orderId() == 57)
                .id();

        kit.drain();

        assertThat(kit.requireDelivery(eventId, "charge-card"))
                .extracting(Delivery::status, Delivery::attempts, Delivery::failureReason)
                .containsExactly(Delivery.Status.FAILED, 1, "job_failed");
        assertThat(kit.requireDelivery(eventId, "send-confirmation").status()).isEqualTo(Delivery.Status.COMPLETED);
        assertThat(kit.runs("charge-card"))
                .singleElement()
                .extracting(JobRun::thrown)
                .isInstanceOf(IllegalStateException.class);
    }
}
