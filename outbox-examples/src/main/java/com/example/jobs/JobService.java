package com.example.jobs;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.worker.OutboxWorker;
import dev.outbox.worker.QueueSettings;
import dev.outbox.worker.RetryableOutboxException;
import java.io.IOException;
import java.util.Objects;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** Runs the send-confirmation job for every order.placed event routed to the queue "emails". */
public final class JobService {

    public static void main(String[] args) {
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        // the application's database: the worker writes each outcome there
        dataSource.setUrl(Objects.requireNonNull(System.getenv("JDBC_URL"), "set JDBC_URL"));
        dataSource.setUser(Objects.requireNonNull(System.getenv("JDBC_USER"), "set JDBC_USER"));
        dataSource.setPassword(System.getenv("JDBC_PASSWORD"));
        // e.g. AMQP_URI=amqp://guest:guest@localhost:5672/%2F
        String amqpUri = Objects.requireNonNull(System.getenv("AMQP_URI"), "set AMQP_URI");

        OutboxWorker worker = worker(dataSource, amqpUri, OutboxTables.defaults(), "emails");
        worker.start(); // runs until SIGTERM: its shutdown hook lets running jobs finish, then stops
    }

    public static OutboxWorker worker(DataSource dataSource, String amqpUri, OutboxTables tables, String queue) {
        return OutboxWorker.builder()
                .dataSource(dataSource)
                .amqpUri(amqpUri)
                .tables(tables)
                .queue(queue, QueueSettings.of(4, 50)) // 4 jobs at a time, 50 messages prefetched
                .handler("send-confirmation", OrderPlaced.class, (order, context) -> {
                    try {
                        sendConfirmation(order);
                    } catch (IOException e) {
                        // worth another try: pending again after the route's next retry delay,
                        // failed (retries_exhausted) after the last one
                        throw new RetryableOutboxException("mail server unavailable", e);
                    }
                    // returning completes the delivery; any other exception fails it at once (job_failed).
                    // At least once: a handler may run twice for one delivery, so make it idempotent.
                })
                .build();
    }

    private static void sendConfirmation(OrderPlaced order) throws IOException {
        System.out.println("confirmation e-mail for order " + order.orderId() + " sent to " + order.customer());
    }
}
