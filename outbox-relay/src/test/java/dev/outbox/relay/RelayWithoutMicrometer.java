package dev.outbox.relay;

import dev.outbox.flyway.OutboxTables;
import java.time.Duration;
import java.util.List;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A child JVM's main for {@link MicrometerAbsentIT}: on a class path without Micrometer, builds a
 * relay (no registry) and runs one pass. Args: JDBC URL, user, password, schema, AMQP URI, queue.
 */
public final class RelayWithoutMicrometer {

    private RelayWithoutMicrometer() {}

    public static void main(String[] args) {
        try {
            Class.forName("io.micrometer.core.instrument.MeterRegistry");
            System.out.println("micrometer is on the class path");
            System.exit(3);
        } catch (ClassNotFoundException expected) {
            System.out.println("micrometer absent");
        }
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(args[0]);
        dataSource.setUser(args[1]);
        dataSource.setPassword(args[2]);
        try (OutboxRelay relay = OutboxRelay.builder()
                .dataSource(dataSource)
                .tables(OutboxTables.defaults().withSchema(args[3]))
                .amqpUri(args[4])
                .routes(Routes.builder()
                        .route("order.cancelled", Route.job("refund", args[5], List.of(), Duration.ofSeconds(60)))
                        .build())
                .build()) {
            PassResult result = relay.runOnce();
            System.out.println("routed " + result.routedEvents() + ", confirmed " + result.confirmed());
        }
    }
}
