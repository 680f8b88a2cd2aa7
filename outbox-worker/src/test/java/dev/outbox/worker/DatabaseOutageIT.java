package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.api.EventType;
import dev.outbox.api.OutboxException;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.TcpProxy;
import dev.outbox.worker.WorkerFixture.Sent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worker's database behind a loopback proxy that cuts every connection and refuses new ones for
 * a while: the worker waits for it at start-up, its lookups and outcome writes wait for it with the
 * messages unacknowledged (no delivery loses an attempt to its timeout), and a worker that stops
 * meanwhile leaves its messages to the broker; a fatal error at start-up still fails at once.
 */
class DatabaseOutageIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    static final PostgresSchemaExtension db = fixture.db;

    static final String JOB = "refund";

    @EventType("order.returned")
    record OrderReturned(long orderId) {}

    TcpProxy proxy;
    HikariDataSource proxied;
    String queue;

    @BeforeEach
    void proxy() throws Exception {
        proxy = TcpProxy.toJdbcUrl(db.server().jdbcUrl());
        queue = fixture.queue("db-outage");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(proxy.jdbcUrl(db.server().jdbcUrl()));
        config.setUsername(db.server().user());
        config.setPassword(db.server().password());
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(500);
        config.setInitializationFailTimeout(-1); // may be created while the database is down
        proxied = new HikariDataSource(config);
    }

    @AfterEach
    void close() {
        proxied.close();
        proxy.close();
    }

    private OutboxWorker.Builder worker(JobHandler<OrderReturned> handler) {
        return fixture.worker().dataSource(proxied).queue(queue, 2, 10).handler(JOB, OrderReturned.class, handler);
    }

    private Sent send(long orderId) throws Exception {
        Sent sent = fixture.dispatched(new OrderReturned(orderId), JOB, queue, List.of(60));
        fixture.publish(sent);
        return sent;
    }

    private static void awaitCompleted(Sent sent) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> fixture.status(sent.deliveryId()) == OutboxDeliveryStatus.completed);
    }

    @Test
    void startWaitsForADatabaseThatIsDownAndConsumesOnceItAnswers() throws Exception {
        proxy.down();
        try (OutboxWorker worker = worker((event, context) -> {}).build()) {
            CompletableFuture<Void> started = CompletableFuture.runAsync(worker::start);
            Thread.sleep(1_500); // kept: time for start() to return, which it must not
            assertThat(started).as("start() waits while the database is down").isNotDone();

            proxy.up();
            long up = System.nanoTime();
            started.get(15, TimeUnit.SECONDS);
            System.out.printf(
                    "outage-recovery: worker, database down at start-up: start() returned %d ms after it came back%n",
                    (System.nanoTime() - up) / 1_000_000);
            awaitCompleted(send(1));
        }
    }

    @Test
    void startStillFailsAtOnceWhenTheTablesAreMissing() {
        OutboxWorker worker = worker((event, context) -> {})
                .tables(OutboxTables.defaults().withSchema("no_such_schema"))
                .build();
        long begin = System.nanoTime();

        assertThatThrownBy(worker::start)
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("cannot read the outbox tables")
                .hasMessageContaining("a table is missing");
        assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aMessageArrivingDuringAnOutageRunsItsJobOnceTheDatabaseAnswersWithoutLosingTheAttempt() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        try (OutboxWorker worker =
                worker((event, context) -> calls.incrementAndGet()).build()) {
            worker.start();
            awaitCompleted(send(1));

            proxy.down();
            Sent during = send(2); // its lookup fails while the database is down
            Thread.sleep(2_000); // kept: the outage lasts 2 s, and the delivery must stay dispatched through it
            assertThat(fixture.status(during.deliveryId())).isEqualTo(OutboxDeliveryStatus.dispatched);
            proxy.up();
            long up = System.nanoTime();

            awaitCompleted(during);
            System.out.printf(
                    "outage-recovery: worker, database down 2 s under a lookup: completed %d ms after it came back%n",
                    (System.nanoTime() - up) / 1_000_000);
            assertThat(fixture.row(during.deliveryId()).getAttempts())
                    .isEqualTo(1); // the same dispatch, no timeout needed
            assertThat(calls).hasValue(2);
        }
        assertThat(fixture.ready(queue)).isZero(); // acknowledged
    }

    @Test
    void aCompletionThatFindsTheDatabaseDownIsWrittenWhenItAnswersAndOnlyThenAcknowledged() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (OutboxWorker worker = worker((event, context) -> {
                    running.countDown();
                    release.await(30, TimeUnit.SECONDS);
                })
                .build()) {
            worker.start();
            Sent slow = send(1);
            assertThat(running.await(15, TimeUnit.SECONDS)).isTrue();

            proxy.down();
            release.countDown(); // the job returns; its completion finds the database down
            Thread.sleep(2_000); // kept: the outage lasts 2 s, and the delivery must stay dispatched through it
            assertThat(fixture.status(slow.deliveryId())).isEqualTo(OutboxDeliveryStatus.dispatched);
            proxy.up();

            awaitCompleted(slow);
        }
        assertThat(fixture.ready(queue)).isZero(); // acknowledged after the write, not given back
    }

    @Test
    void aWorkerStoppingWhileTheDatabaseIsDownLeavesTheMessageToTheBroker() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Sent slow;
        try (OutboxWorker worker = worker((event, context) -> {
                    running.countDown();
                    release.await(30, TimeUnit.SECONDS);
                })
                .build()) {
            worker.start();
            slow = send(1);
            assertThat(running.await(15, TimeUnit.SECONDS)).isTrue();

            proxy.down();
            release.countDown();
            Thread.sleep(1_000); // the completion is waiting for the database
        } // close() while the database is still down
        proxy.up();

        assertThat(fixture.status(slow.deliveryId())).isEqualTo(OutboxDeliveryStatus.dispatched);
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.ready(queue) == 1); // given back, not rejected
    }
}
