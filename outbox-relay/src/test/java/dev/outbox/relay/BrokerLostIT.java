package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.Intercept;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TcpProxy;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker connection lost between the claim's commit and the publish: the claimed batch never
 * reached the broker, so it goes back to pending at once without counting the attempt, instead of
 * waiting out its delivery timeout.
 */
class BrokerLostIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static final PostgresSchemaExtension db = fixture.db;
    static final RabbitExtension rabbit = fixture.rabbit;

    static String refunds;

    final MutableClock clock = MutableClock.startingNow();
    final AtomicInteger cutAfterCommits = new AtomicInteger(-1);
    TcpProxy proxy;
    Tables tables;
    OutboxRelay relay;

    @BeforeAll
    static void queues() throws Exception {
        refunds = fixture.queue("refunds");
    }

    @BeforeEach
    void setUp() throws Exception {
        tables = fixture.tables();
        proxy = fixture.closeAfterEach(TcpProxy.toAmqpUri(rabbit.uri()));
        ConnectionFactory amqp = rabbit.connectionFactory();
        amqp.setHost("127.0.0.1");
        amqp.setPort(proxy.port());
        relay = fixture.closeAfterEach(OutboxRelay.builder()
                .dataSource(cuttingAfterCommits(db.dataSource()))
                .connectionFactory(amqp)
                .tables(db.tables())
                .clock(clock)
                .routes(Routes.builder()
                        .route(
                                "order.cancelled",
                                Route.job("refund", refunds, RetrySchedule.seconds(5), Duration.ofSeconds(300)))
                        .build())
                .build());
    }

    /**
     * The relay's database, with a hook: when {@link #cutAfterCommits} counts down to zero, the
     * commit that did it is followed by a broker outage (the proxy goes down) before the relay goes on.
     */
    private DataSource cuttingAfterCommits(DataSource real) {
        return new DataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                Connection c = real.getConnection();
                return Intercept.of(Connection.class, c, call -> {
                    Object result = call.proceed();
                    if (call.name().equals("commit")
                            && cutAfterCommits.get() > 0
                            && cutAfterCommits.decrementAndGet() == 0) {
                        proxy.down();
                        Thread.sleep(500); // the relay's amqp-client notices its connection is gone
                    }
                    return result;
                });
            }

            @Override
            public Connection getConnection(String user, String password) {
                throw new UnsupportedOperationException();
            }

            @Override
            public PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(PrintWriter out) {}

            @Override
            public void setLoginTimeout(int seconds) {}

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public Logger getParentLogger() throws SQLFeatureNotSupportedException {
                throw new SQLFeatureNotSupportedException();
            }

            @Override
            public <T> T unwrap(Class<T> iface) throws SQLException {
                return real.unwrap(iface);
            }

            @Override
            public boolean isWrapperFor(Class<?> iface) throws SQLException {
                return real.isWrapperFor(iface);
            }
        };
    }

    @Test
    void aBatchClaimedAsTheBrokerDropsGoesBackToPendingAtOnceWithoutCountingTheAttempt() throws Exception {
        relay.runOnce(); // connected, queue declared
        UUID event = tables.record(new OrderCancelled(1)).get(0);
        cutAfterCommits.set(2); // the pass commits its routing, then its claim: the broker drops right after the claim

        assertThatThrownBy(relay::runOnce).isInstanceOf(BrokerUnavailableException.class);

        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(d.getAttempts()).isZero();
        assertThat(d.getAvailableAt().toInstant()).isBeforeOrEqualTo(clock.instant());
        assertThat(d.getDispatchedAt()).isNull();
        assertThat(d.getDeliveryTimeoutAt()).isNull();
    }

    @Test
    void aLoopingRelayRidesOutABrokerOutageAndSendsWhatWasRecordedMeanwhile() throws Exception {
        relay.start();
        UUID before = tables.record(new OrderCancelled(4)).get(0);
        awaitDispatched(before);

        proxy.down();
        UUID during = tables.record(new OrderCancelled(5)).get(0);
        Thread.sleep(2_000); // kept: the outage lasts 2 s
        proxy.up();
        long up = System.nanoTime();

        awaitDispatched(during);
        System.out.printf(
                "outage-recovery: relay loop, broker down 2 s: delivered %d ms after it came back%n",
                (System.nanoTime() - up) / 1_000_000);
        assertThat(tables.delivery(during).getAttempts()).isEqualTo(1);
        assertThat(relay.failure()).isEmpty();
    }

    private void awaitDispatched(UUID event) throws Exception {
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(20))
                .until(() -> tables.deliveriesOf(event).stream()
                                .anyMatch(d -> d.getStatus() == OutboxDeliveryStatus.dispatched)
                        && fixture.broker().messageCount(refunds) > 0);
        fixture.broker().purge(refunds);
    }

    @Test
    void theReleasedBatchIsSentAsItsFirstAttemptOnceTheBrokerIsBack() throws Exception {
        relay.runOnce();
        UUID event = tables.record(new OrderCancelled(2)).get(0);
        cutAfterCommits.set(2);
        assertThatThrownBy(relay::runOnce).isInstanceOf(BrokerUnavailableException.class);
        proxy.up();

        PassResult result = relay.runOnce();

        assertThat(result.confirmed()).isEqualTo(1);
        OutboxDeliveriesRecord d = tables.delivery(event);
        assertThat(d.getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        assertThat(d.getAttempts()).isEqualTo(1);
        assertThat(fixture.broker().take(refunds, 1)).hasSize(1);
    }
}
