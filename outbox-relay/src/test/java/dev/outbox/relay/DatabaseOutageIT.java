package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TcpProxy;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A looping relay rides out a database outage (every connection cut, new ones refused for a while)
 * and delivers what was recorded during and after it; a fatal database error still ends the loop.
 */
class DatabaseOutageIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final PostgresSchemaExtension doomed = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    TcpProxy proxy;
    HikariDataSource proxied;

    @BeforeEach
    void proxy() {
        proxy = TcpProxy.toJdbcUrl(db.server().jdbcUrl());
    }

    @AfterEach
    void close() {
        if (proxied != null) {
            proxied.close();
        }
        proxy.close();
    }

    /** A pool that reaches the database through the proxy and may be created while it is down. */
    private HikariDataSource pool(PostgresSchemaExtension schema) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(proxy.jdbcUrl(schema.server().jdbcUrl()));
        config.setUsername(schema.server().user());
        config.setPassword(schema.server().password());
        config.setSchema(schema.schema());
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(1_000);
        config.setInitializationFailTimeout(-1);
        proxied = new HikariDataSource(config);
        return proxied;
    }

    private OutboxRelay relay(PostgresSchemaExtension schema, String queue) {
        return OutboxRelay.builder()
                .dataSource(pool(schema))
                .connectionFactory(rabbit.connectionFactory())
                .tables(schema.tables())
                .routes(Routes.builder()
                        .route(
                                "order.cancelled",
                                Route.job("refund", queue, RetrySchedule.seconds(5), Duration.ofSeconds(120)))
                        .build())
                .build();
    }

    private static void awaitDispatched(Tables tables, UUID event) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> tables.deliveriesOf(event).stream()
                        .anyMatch(d -> d.getStatus() == OutboxDeliveryStatus.dispatched));
    }

    @Test
    void aLoopingRelayKeepsRunningAcrossADatabaseOutageAndDeliversWhatWasRecordedMeanwhile() throws Exception {
        Tables tables = new Tables(db);
        try (OutboxRelay relay = relay(db, rabbit.queue("refunds")).start()) {
            UUID before = tables.record(new OrderCancelled(1)).get(0);
            awaitDispatched(tables, before);

            proxy.down(); // every connection of the relay cut, new ones refused
            UUID during = tables.record(new OrderCancelled(2)).get(0);
            Thread.sleep(2_500); // passes fail meanwhile
            proxy.up();
            long up = System.nanoTime();
            UUID after = tables.record(new OrderCancelled(3)).get(0);

            awaitDispatched(tables, during);
            System.out.printf(
                    "outage-recovery: relay loop, database down 2.5 s: delivered %d ms after it came back%n",
                    (System.nanoTime() - up) / 1_000_000);
            awaitDispatched(tables, after);
            assertThat(relay.failure()).isEmpty();
        }
    }

    @Test
    void aLoopingRelayStartedWhileTheDatabaseIsDownStartsWorkingWhenItComesUp() throws Exception {
        Tables tables = new Tables(db);
        proxy.down();
        try (OutboxRelay relay = relay(db, rabbit.queue("late")).start()) {
            UUID event = tables.record(new OrderCancelled(4)).get(0);
            Thread.sleep(1_500); // kept: time for the relay to fail, which it must not
            assertThat(relay.failure()).isEmpty();
            proxy.up();

            awaitDispatched(tables, event);
            assertThat(relay.failure()).isEmpty();
        }
    }

    @Test
    void aFatalDatabaseErrorStillEndsTheLoopWithOneClearMessage() throws Exception {
        try (OutboxRelay relay = relay(doomed, rabbit.queue("doomed")).start()) {
            Thread.sleep(300);
            try (Connection c = doomed.server().connect();
                    Statement s = c.createStatement()) {
                s.execute("DROP TABLE " + doomed.schema() + ".outbox_deliveries, " + doomed.schema()
                        + ".outbox_events CASCADE");
            }

            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> relay.failure().isPresent());
            assertThat(relay.failure().get())
                    .isInstanceOf(RelayException.class)
                    .isNotInstanceOf(DatabaseUnavailableException.class)
                    .hasMessageContaining("42P01")
                    .hasMessageNotContaining("\n");
        }
    }
}
