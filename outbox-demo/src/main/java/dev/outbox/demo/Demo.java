package dev.outbox.demo;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxDsl;
import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.OutboxStatus;
import dev.outbox.relay.cli.RelayCommand;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.worker.JobHandler;
import dev.outbox.worker.OutboxWorker;
import dev.outbox.worker.QueueSettings;
import dev.outbox.worker.RetryableOutboxException;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The end-to-end demo: migrate, record orders in business transactions, run the relay service (a
 * process of its own) and a worker, then print the status table and a summary.
 *
 * <p>With nothing configured it starts an embedded PostgreSQL and an embedded AMQP 0-9-1 broker
 * (Qpid Broker-J); with {@code OUTBOX_JDBC_URL} (+ {@code OUTBOX_JDBC_USER},
 * {@code OUTBOX_JDBC_PASSWORD}) and {@code OUTBOX_AMQP_URI} it uses those servers, in a schema and
 * with queues of its own that it removes afterwards.
 */
public final class Demo {

    static final int ORDERS = 300;

    private Demo() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        System.setProperty("org.slf4j.simpleLogger.showThreadName", "false");
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        System.exit(run());
    }

    static int run() throws Exception {
        long started = System.nanoTime();
        String run = UUID.randomUUID().toString().substring(0, 8);
        List<AutoCloseable> cleanup = new ArrayList<>();
        try {
            // ---------------------------------------------------------------- servers
            String jdbcUrl = System.getenv("OUTBOX_JDBC_URL");
            String user = envOr("OUTBOX_JDBC_USER", "postgres");
            String password = envOr("OUTBOX_JDBC_PASSWORD", "");
            String schema;
            if (jdbcUrl == null || jdbcUrl.isBlank()) {
                say("starting an embedded PostgreSQL (set OUTBOX_JDBC_URL to use your own)");
                EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
                cleanup.add(0, pg);
                jdbcUrl = pg.getJdbcUrl("postgres", "postgres");
                schema = "public";
            } else {
                schema = "outbox_demo_" + run;
                say("using PostgreSQL at " + jdbcUrl + ", schema " + schema);
            }
            String amqpUri = System.getenv("OUTBOX_AMQP_URI");
            if (amqpUri == null || amqpUri.isBlank()) {
                say("starting an embedded AMQP 0-9-1 broker, Qpid Broker-J (set OUTBOX_AMQP_URI to use your RabbitMQ)");
                EmbeddedBroker broker = EmbeddedBroker.start();
                cleanup.add(0, broker);
                amqpUri = broker.uri();
            } else {
                say("using the AMQP broker at " + redact(amqpUri));
            }
            HikariDataSource dataSource = dataSource(jdbcUrl, user, password);
            cleanup.add(0, dataSource);
            OutboxTables tables = OutboxTables.defaults().withSchema(schema);
            if (!"public".equals(schema)) {
                String dropSchema = schema;
                String url = jdbcUrl;
                cleanup.add(cleanup.size(), () -> dropSchema(url, user, password, dropSchema));
            }

            // ---------------------------------------------------------------- migrations
            migrate(dataSource, tables);
            DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
            say("migrated: " + schema + ".outbox_events, " + schema + ".outbox_deliveries, " + schema + ".orders");

            // ---------------------------------------------------------------- broker topology
            String emails = "demo-emails-" + run;
            String payments = "demo-payments-" + run;
            String exchange = "demo-orders-" + run;
            String analytics = "demo-analytics-" + run;
            ConnectionFactory factory = new ConnectionFactory();
            factory.setUri(URI.create(amqpUri));
            Connection connection = factory.newConnection("outbox-demo");
            cleanup.add(0, connection);
            Channel setup = connection.createChannel();
            setup.exchangeDeclare(exchange, "topic", true);
            setup.queueDeclare(analytics, true, false, false, null);
            setup.queueBind(analytics, exchange, "order.#");
            cleanup.add(1, () -> deleteTopology(factory, List.of(emails, payments, analytics), exchange));

            Path routes = Files.createTempFile("outbox-demo-routes", ".yaml");
            Files.writeString(routes, routesFile(emails, payments, exchange));
            cleanup.add(0, () -> Files.deleteIfExists(routes));

            // ---------------------------------------------------------------- another service reading the publish
            // route
            AtomicInteger published = new AtomicInteger();
            Channel analyticsChannel = connection.createChannel();
            analyticsChannel.basicConsume(analytics, false, new DefaultConsumer(analyticsChannel) {
                @Override
                public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                        throws java.io.IOException {
                    published.incrementAndGet();
                    getChannel().basicAck(envelope.getDeliveryTag(), false);
                }
            });

            // ---------------------------------------------------------------- the worker (embedded in this job
            // service)
            OutboxWorker worker = worker(dataSource, amqpUri, tables, emails, payments);
            cleanup.add(0, worker);
            worker.start();
            say("worker consuming " + emails + " and " + payments);

            // ---------------------------------------------------------------- the relay service (a process of its own)
            Map<String, String> env = new HashMap<>();
            env.put("OUTBOX_JDBC_URL", jdbcUrl);
            env.put("OUTBOX_JDBC_USER", user);
            env.put("OUTBOX_JDBC_PASSWORD", password);
            env.put("OUTBOX_AMQP_URI", amqpUri);
            env.put("OUTBOX_ROUTES_FILE", routes.toString());
            env.put("OUTBOX_SCHEMA", schema);
            Path relayLog = Files.createTempFile("outbox-demo-relay", ".log");
            ProcessBuilder relayCommand = new ProcessBuilder(
                            javaCommand(RelayCommand.class.getName(), "relay", "--loop", "--sleep=1"))
                    .redirectErrorStream(true)
                    .redirectOutput(relayLog.toFile());
            relayCommand.environment().putAll(env);
            Process relay = relayCommand.start();
            cleanup.add(0, () -> stop(relay));
            say("relay service started: java -cp ... " + RelayCommand.class.getName() + " relay --loop (pid "
                    + relay.pid() + ", log " + relayLog + ")");

            // ---------------------------------------------------------------- business transactions
            Outbox outbox = Outbox.builder().tables(tables).build();
            ExecutorService producers = Executors.newFixedThreadPool(4);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                futures.add(producers.submit(() -> {
                    for (long id = thread + 1L; id <= ORDERS; id += 4) {
                        placeOrder(dsl, outbox, schema, id);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            producers.shutdown();
            say("recorded " + ORDERS + " orders, each with its order.placed event in the same transaction");

            // ---------------------------------------------------------------- wait for the outbox to settle
            DSLContext mapped = OutboxDsl.mapped(dsl, tables);
            int expected = ORDERS * 3;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (true) {
                int done = mapped.fetchCount(
                        OUTBOX_DELIVERIES,
                        OUTBOX_DELIVERIES.STATUS.in(OutboxDeliveryStatus.completed, OutboxDeliveryStatus.failed));
                int all = mapped.fetchCount(OUTBOX_DELIVERIES);
                say(String.format(
                        "progress: %d/%d events routed, %d/%d deliveries finished, %d messages seen by the analytics consumer",
                        all / 3, ORDERS, done, expected, published.get()));
                if (done == expected && published.get() >= ORDERS) {
                    break;
                }
                if (!relay.isAlive()) {
                    throw new IllegalStateException(
                            "the relay service stopped with exit code " + relay.exitValue() + ", see " + relayLog);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the outbox did not settle within 90 s, see " + relayLog);
                }
                Thread.sleep(1_000);
            }

            // ---------------------------------------------------------------- status and summary
            int relayExit = stop(relay);
            say("relay service stopped on SIGTERM, exit code " + relayExit);
            worker.close();
            // what `java -jar outbox-relay.jar status` prints
            System.out.println();
            System.out.print(
                    OutboxStatus.read(dataSource, tables, Clock.systemUTC()).toTable());
            System.out.println();
            int recorded = mapped.fetchCount(OUTBOX_EVENTS);
            int completed =
                    mapped.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.completed));
            int retried = mapped.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.ATTEMPTS.gt(1));
            int failed = mapped.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.failed));
            System.out.printf(
                    "summary: recorded %d events, %d deliveries completed, %d retried, %d failed, in %.1f s%n",
                    recorded, completed, retried, failed, (System.nanoTime() - started) / 1e9);
            return 0;
        } finally {
            for (AutoCloseable c : cleanup) {
                try {
                    c.close();
                } catch (Exception e) {
                    System.err.println("demo: cleanup failed: " + e.getClass().getSimpleName());
                }
            }
        }
    }

    static void migrate(DataSource dataSource, OutboxTables tables) {
        // snippet:java-migrations
        // the application's own migrations, with Flyway's default history table
        Flyway.configure()
                .dataSource(dataSource)
                .schemas(tables.schema())
                .locations("classpath:db/demo")
                .load()
                .migrate();
        // the outbox's, beside them in the same schema, with a history table of their own
        OutboxMigrations.migrate(dataSource, tables);
        // end-snippet
    }

    // snippet:java-record
    static void placeOrder(DSLContext dsl, Outbox outbox, String schema, long orderId) {
        BigDecimal total = BigDecimal.valueOf(orderId * 7 % 500 + 10, 0).setScale(2);
        dsl.transaction(tx -> {
            tx.dsl()
                    .insertInto(DSL.table(DSL.name(schema, "orders")))
                    .columns(DSL.field("id"), DSL.field("customer"), DSL.field("total"))
                    .values(orderId, "customer-" + orderId % 37, total)
                    .execute();
            outbox.record(tx.dsl(), new OrderPlaced(orderId, "customer-" + orderId % 37, total, Instant.now()));
        });
    }
    // end-snippet

    // snippet:java-worker
    // the job service's handlers: the same objects run in production and in its tests (outbox-testkit)
    static final JobHandler<OrderPlaced> SEND_CONFIRMATION = (order, context) -> {
        if (order.orderId() % 10 == 3 && context.attempt() == 1) {
            // the mail server said "try later": the outbox schedules the next attempt
            throw new RetryableOutboxException("mail server busy");
        }
        // send the e-mail; the handler may run twice for one delivery (at least once)
    };
    static final JobHandler<OrderPlaced> CHARGE_CARD = (order, context) -> {
        if (order.orderId() % 50 == 7) {
            // any other exception fails the delivery at once (job_failed)
            throw new IllegalStateException("card declined");
        }
    };

    static OutboxWorker worker(
            DataSource dataSource, String amqpUri, OutboxTables tables, String emails, String payments) {
        return OutboxWorker.builder()
                .dataSource(dataSource)
                .amqpUri(amqpUri)
                .tables(tables)
                .queue(emails, QueueSettings.of(4, 50))
                .queue(payments, QueueSettings.of(2, 50))
                .handler("send-confirmation", OrderPlaced.class, SEND_CONFIRMATION)
                .handler("charge-card", OrderPlaced.class, CHARGE_CARD)
                .shutdownGrace(Duration.ofSeconds(10))
                .build();
    }
    // end-snippet

    /** The relay service's routes file of the demo: two job routes and a publish route for order.placed. */
    static String routesFile(String emails, String payments, String exchange) {
        return String.join(
                "\n",
                "routes:",
                "  order.placed:",
                "    - job: send-confirmation",
                "      queue: " + emails,
                "      retryDelaysSeconds: [1, 1, 2]",
                "      deliveryTimeoutSeconds: 30",
                "    - job: charge-card",
                "      queue: " + payments,
                "      retryDelaysSeconds: [1]",
                "      deliveryTimeoutSeconds: 30",
                "    - publish: order-events",
                "      exchange: " + exchange,
                "      routingKey: order.placed",
                "      retryDelaysSeconds: [1, 2]",
                "      deliveryTimeoutSeconds: 30",
                "");
    }

    private static HikariDataSource dataSource(String url, String user, String password) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(10);
        config.setPoolName("outbox-demo");
        return new HikariDataSource(config);
    }

    private static List<String> javaCommand(String mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        command.addAll(List.of(args));
        return command;
    }

    private static int stop(Process process) throws InterruptedException {
        if (process.isAlive()) {
            process.destroy(); // SIGTERM: the relay finishes its pass and exits
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        return process.waitFor();
    }

    private static void deleteTopology(ConnectionFactory factory, List<String> queues, String exchange)
            throws Exception {
        try (Connection c = factory.newConnection("outbox-demo-cleanup");
                Channel ch = c.createChannel()) {
            for (String q : queues) {
                ch.queueDelete(q);
            }
            ch.exchangeDelete(exchange);
        }
    }

    private static void dropSchema(String url, String user, String password, String schema) throws Exception {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url, user, password);
                java.sql.Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    private static String redact(String uri) {
        return uri.replaceAll("//[^@/]*@", "//***@");
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static void say(String line) {
        System.out.println("demo: " + line);
    }
}
