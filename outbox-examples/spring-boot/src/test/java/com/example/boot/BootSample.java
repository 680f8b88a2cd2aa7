package com.example.boot;

import dev.outbox.delivery.amqp.AmqpAddress;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.Routes;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TestPostgres;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.springframework.test.context.DynamicPropertyRegistry;

/** What the deployment gives the sample application, and the relay service's part, in the tests. */
public final class BootSample {

    private BootSample() {}

    /**
     * Connection properties only, the way a deployment sets them: Boot's own keys for the database
     * (on the test's schema) and the broker, and the queue of the confirmation jobs.
     */
    public static void connect(
            DynamicPropertyRegistry registry, PostgresSchemaExtension db, RabbitExtension rabbit, String queue) {
        TestPostgres pg = db.server();
        registry.add(
                "spring.datasource.url",
                () -> pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + db.schema());
        registry.add("spring.datasource.username", pg::user);
        registry.add("spring.datasource.password", pg::password);
        registry.add("spring.flyway.default-schema", db::schema);
        registry.add("spring.flyway.schemas", db::schema);
        registry.add("outbox.schema", db::schema);
        AmqpAddress broker = AmqpAddress.parse(rabbit.uri(), "test broker");
        registry.add("spring.rabbitmq.host", broker::host);
        registry.add("spring.rabbitmq.port", broker::port);
        registry.add("spring.rabbitmq.username", broker::username);
        registry.add("spring.rabbitmq.password", broker::password);
        registry.add("spring.rabbitmq.virtual-host", broker::virtualHost);
        registry.add("orders.confirmations-queue", () -> queue);
    }

    /** One pass of the real relay, as the relay service runs it: routes the recorded events, dispatches the jobs. */
    public static void relayOnce(PostgresSchemaExtension db, RabbitExtension rabbit, Routes routes) {
        try (OutboxRelay relay = OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .routes(routes)
                .notifications(false)
                .build()) {
            relay.runOnce();
        }
    }

    /** The status of the delivery of {@code orderId}'s event, or "none". */
    public static String status(PostgresSchemaExtension db, String orderId) {
        String status = DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                                .fetchValue(
                                        "select d.status::text from "
                                                + db.schema() + ".outbox_deliveries d join " + db.schema()
                                                + ".outbox_events e on e.id = d.event_id"
                                                + " where e.payload->>'orderId' = ?",
                                        orderId)
                        instanceof String s
                ? s
                : null;
        return status == null ? "none" : status;
    }

    public static int count(PostgresSchemaExtension db, String sql, Object... bindings) {
        return DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                                .fetchValue(sql.replace("{schema}", db.schema()), bindings)
                        instanceof Number n
                ? n.intValue()
                : -1;
    }
}
