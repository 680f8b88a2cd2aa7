package com.example.orders;

import dev.outbox.api.Outbox;
import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.Objects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.ds.PGSimpleDataSource;

/** Places an order and records its order.placed event in the same transaction. */
public final class OrdersApp {

    public static void main(String[] args) {
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        // e.g. JDBC_URL=jdbc:postgresql://localhost:5432/app
        dataSource.setUrl(Objects.requireNonNull(System.getenv("JDBC_URL"), "set JDBC_URL"));
        dataSource.setUser(Objects.requireNonNull(System.getenv("JDBC_USER"), "set JDBC_USER"));
        dataSource.setPassword(System.getenv("JDBC_PASSWORD"));
        OutboxTables tables = OutboxTables.defaults(); // outbox_events and outbox_deliveries in schema public

        migrate(dataSource, tables);
        Outbox outbox = Outbox.builder().tables(tables).build(); // once, shared by every transaction
        DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
        long orderId = placeOrder(dsl, outbox, "customer-42", new BigDecimal("19.90"));
        System.out.println("order " + orderId + " placed, its order.placed event recorded");
    }

    /** Yours first (src/main/resources/db/migration, Flyway's default history table), then ours. */
    public static void migrate(DataSource dataSource, OutboxTables tables) {
        Flyway.configure().dataSource(dataSource).load().migrate();
        OutboxMigrations.migrate(dataSource, tables); // history table outbox_flyway_history
    }

    /** The business change and the event commit together, or neither does. */
    public static long placeOrder(DSLContext dsl, Outbox outbox, String customer, BigDecimal total) {
        return dsl.transactionResult(tx -> {
            long orderId = tx.dsl()
                    .insertInto(DSL.table("orders"), DSL.field("customer"), DSL.field("total"))
                    .values(customer, total)
                    .returningResult(DSL.field("id", Long.class))
                    .fetchSingle()
                    .value1();
            outbox.record(tx.dsl(), new OrderPlaced(orderId, customer, total, Instant.now()));
            return orderId;
        });
    }
}
