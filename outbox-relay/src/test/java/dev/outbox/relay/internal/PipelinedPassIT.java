package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.api.Outbox;
import dev.outbox.relay.DatabaseUnavailableException;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.relay.PassResult;
import dev.outbox.relay.QueueType;
import dev.outbox.relay.RelayFixture;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.Intercept;
import dev.outbox.testing.MutableClock;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pass routes its next T1 batch on the routing thread while it claims and publishes what the batch
 * before created; a pass that fails meanwhile returns only once that routing batch has ended.
 */
class PipelinedPassIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    /** How much longer each statement of the slowed kind takes here, so that what runs beside it is seen to. */
    static final long DELAY_MILLIS = 300;

    static String emails;

    @BeforeAll
    static void queue() {
        emails = fixture.queue("pipelined-pass-emails");
    }

    /** One statement run: T1's route ({@code insert into}) or T2's claim (its {@code "ready"} alias), on which thread, from when to when. */
    record Run(String what, String thread, long startNanos, long endNanos) {}

    /**
     * The class's data source, except that every T1 route statement and T2 claim is recorded in
     * {@code runs}, those of kind {@code slow} ({@code "route"} or {@code "claim"}) take
     * {@link #DELAY_MILLIS} longer, and a connection asked for on a thread that {@code refuse} names is
     * refused as by a database going away.
     */
    private static DataSource observed(List<Run> runs, String slow, Predicate<String> refuse) {
        return Intercept.of(DataSource.class, fixture.db.dataSource(), call -> {
            if (!call.name().equals("getConnection")) {
                return call.proceed();
            }
            if (refuse.test(Thread.currentThread().getName())) {
                throw new SQLException("test: the database went away", "08006");
            }
            return Intercept.of(Connection.class, (Connection) call.proceed(), c -> {
                Object result = c.proceed();
                String sql = c.name().equals("prepareStatement") && c.arg(0) instanceof String text ? text : "";
                String what = sql.contains("insert into") ? "route" : sql.contains("\"ready\"") ? "claim" : null;
                if (what == null) {
                    return result;
                }
                return Intercept.of(PreparedStatement.class, (PreparedStatement) result, st -> {
                    if (!st.name().startsWith("execute")) {
                        return st.proceed();
                    }
                    long start = System.nanoTime();
                    if (what.equals(slow)) {
                        Thread.sleep(DELAY_MILLIS);
                    }
                    try {
                        return st.proceed();
                    } finally {
                        runs.add(new Run(what, Thread.currentThread().getName(), start, System.nanoTime()));
                    }
                });
            });
        });
    }

    /** An engine with batches of one event and one delivery, on {@code dataSource}. */
    private static RelayEngine engine(DataSource dataSource) {
        Routes routes = Routes.builder()
                .route(
                        "order.placed",
                        Route.job("send-confirmation", emails, RetrySchedule.seconds(5), Duration.ofSeconds(60)))
                .build();
        return new RelayEngine(new RelaySettings(
                dataSource,
                fixture.rabbit.connectionFactory(),
                routes,
                fixture.db.tables(),
                MutableClock.startingNow(),
                1,
                1,
                500,
                2_000,
                0,
                Duration.ofSeconds(30),
                QueueType.CLASSIC,
                Outbox.DEFAULT_NOTIFY_CHANNEL,
                true,
                Duration.ofSeconds(1),
                null,
                Duration.ZERO,
                RelayMeters.NONE));
    }

    @Test
    void claimsWhatOneRoutingBatchCreatedWhileTheNextIsRouted() {
        Tables tables = fixture.tables();
        List<UUID> events = tables.record(
                new OrderPlaced(1, BigDecimal.ONE),
                new OrderPlaced(2, BigDecimal.TEN),
                new OrderPlaced(3, BigDecimal.ONE));
        List<Run> runs = new CopyOnWriteArrayList<>();
        PassResult result;
        try (RelayEngine engine = engine(observed(runs, "claim", thread -> false))) {
            result = engine.pass();
        }

        assertThat(result.routedEvents()).isEqualTo(3);
        assertThat(result.dispatched()).isEqualTo(3);
        for (UUID event : events) {
            assertThat(tables.delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        }
        List<Run> routes = runs.stream()
                .filter(r -> r.what().equals("route"))
                .sorted(Comparator.comparingLong(Run::startNanos))
                .toList();
        List<Run> claims = runs.stream()
                .filter(r -> r.what().equals("claim"))
                .sorted(Comparator.comparingLong(Run::startNanos))
                .toList();
        assertThat(routes).hasSize(3);
        // the second and third batches began to be routed, on another thread, before the claim of the batch before each
        // had ended
        for (int i = 0; i < 2; i++) {
            assertThat(routes.get(i + 1).startNanos())
                    .as("batch %d routed while batch %d is claimed, in %s", i + 2, i + 1, runs)
                    .isLessThan(claims.get(i).endNanos());
            assertThat(routes.get(i + 1).thread()).isNotEqualTo(claims.get(i).thread());
        }
    }

    /** A real pool of one connection on the class's schema: a second asker waits, and fails after 5 s (a deadlock fails the test). */
    private static HikariDataSource poolOfOne() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(fixture.db.server().jdbcUrl());
        config.setUsername(fixture.db.server().user());
        config.setPassword(fixture.db.server().password());
        config.setSchema(fixture.db.schema());
        config.setMaximumPoolSize(1);
        config.setConnectionTimeout(5_000);
        return new HikariDataSource(config);
    }

    @Test
    void routesAndDispatchesEverythingWithAPoolOfOneConnection() {
        Tables tables = fixture.tables();
        List<UUID> events = tables.record(
                new OrderPlaced(6, BigDecimal.ONE),
                new OrderPlaced(7, BigDecimal.TEN),
                new OrderPlaced(8, BigDecimal.ONE));
        PassResult result;
        try (HikariDataSource pool = poolOfOne();
                RelayEngine engine = engine(pool)) {
            result = engine.pass(); // the routing batches and the claims take turns with the one connection
        }

        assertThat(result.routedEvents()).isEqualTo(3);
        assertThat(result.dispatched()).isEqualTo(3);
        for (UUID event : events) {
            assertThat(tables.delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
        }
    }

    @Test
    void aPassThatFailsWhileItsNextBatchIsRoutedReturnsOnlyOnceThatBatchIsRouted() {
        Tables tables = fixture.tables();
        List<UUID> events = tables.record(new OrderPlaced(4, BigDecimal.ONE), new OrderPlaced(5, BigDecimal.TEN));
        List<Run> runs = new CopyOnWriteArrayList<>();
        String passThread = Thread.currentThread().getName();
        // the claims (on the pass's own thread) cannot get a connection; the routing batches can
        try (RelayEngine engine = engine(observed(runs, "route", passThread::equals))) {
            assertThatThrownBy(engine::pass).isInstanceOf(DatabaseUnavailableException.class);

            // the claim of the first batch failed while the second was being routed: the pass waited for it
            for (UUID event : events) {
                assertThat(tables.event(event).getRoutedAt())
                        .as("event %s routed", event)
                        .isNotNull();
                assertThat(tables.delivery(event).getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
            }
        }
        assertThat(runs).extracting(Run::what).containsExactly("route", "route");
    }
}
