package com.example.relay;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.Routes;
import java.nio.file.Path;
import java.util.Objects;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** The relay embedded in a service of yours, instead of java -jar outbox-relay.jar relay --loop. */
public final class RelayApp {

    public static void main(String[] args) {
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(Objects.requireNonNull(System.getenv("JDBC_URL"), "set JDBC_URL"));
        dataSource.setUser(Objects.requireNonNull(System.getenv("JDBC_USER"), "set JDBC_USER"));
        dataSource.setPassword(System.getenv("JDBC_PASSWORD"));
        String amqpUri = Objects.requireNonNull(System.getenv("AMQP_URI"), "set AMQP_URI");
        Routes routes = Routes.fromFile(Path.of("routes.yaml")); // the file the relay service reads

        OutboxRelay relay =
                relay(dataSource, amqpUri, OutboxTables.defaults(), routes).start(); // a thread of its own
        Runtime.getRuntime().addShutdownHook(new Thread(relay::close)); // SIGTERM: finish the pass, then stop
    }

    public static OutboxRelay relay(DataSource dataSource, String amqpUri, OutboxTables tables, Routes routes) {
        return OutboxRelay.builder()
                .dataSource(dataSource)
                .amqpUri(amqpUri)
                .tables(tables)
                .routes(routes)
                .build();
    }
}
