package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.Outbox;
import dev.outbox.relay.Events.OrderPlaced;
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
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A busy loop runs the T4 timeout sweep at most once a second (or once per sleep, when that is
 * shorter), not in every pass, and still sweeps while it stays busy; a one-shot pass always sweeps.
 */
class LoopSweepIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static String emails;

    @BeforeAll
    static void queue() {
        emails = fixture.queue("loop-sweep-emails");
    }

    /** Counts the statements of T4 (its subquery's alias, {@code overdue}) prepared on the class's data source. */
    private static DataSource countingSweeps(AtomicInteger sweeps) {
        return Intercept.of(DataSource.class, fixture.db.dataSource(), call -> {
            Object result = call.proceed();
            if (!call.name().equals("getConnection")) {
                return result;
            }
            return Intercept.of(Connection.class, (Connection) result, c -> {
                // T4's statement (it returns failure_reason); T4u's runs beside it in every sweep
                if (c.name().equals("prepareStatement")
                        && c.arg(0) instanceof String sql
                        && sql.contains("\"overdue\"")
                        && sql.contains("failure_reason")) {
                    sweeps.incrementAndGet();
                }
                return c.proceed();
            });
        });
    }

    private static RelayEngine engine(MutableClock clock, DataSource dataSource) {
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
                clock,
                500,
                500,
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
    void aBusyLoopSweepsAboutOnceASecondAndStillTimesOutWhatIsOverdue() {
        Tables tables = fixture.tables();
        MutableClock clock = MutableClock.startingNow();
        UUID overdue = tables.record(new OrderPlaced(1, BigDecimal.ONE)).get(0);
        AtomicInteger sweeps = new AtomicInteger();
        AtomicInteger passes = new AtomicInteger();
        long[] started = new long[1];
        long[] timedOutAfter = {-1};
        try (RelayEngine engine = engine(clock, countingSweeps(sweeps))) {
            // every check records one more event, so every pass finds work and the loop never waits
            engine.loop(() -> {
                int n = passes.getAndIncrement(); // checked before each pass: n passes have run
                if (n == 1) {
                    // after the first pass, which claimed the delivery: its timeout has passed
                    assertThat(tables.delivery(overdue).getStatus()).isEqualTo(OutboxDeliveryStatus.dispatched);
                    clock.advance(Duration.ofSeconds(61));
                    started[0] = System.nanoTime();
                } else if (n > 1
                        && timedOutAfter[0] < 0
                        && tables.delivery(overdue).getUnstartedTimeouts() == 1) {
                    // no worker took it: T4u sent it back (and the busy loop may have sent it again already)
                    timedOutAfter[0] = System.nanoTime() - started[0];
                }
                if (n > 1
                        && System.nanoTime() - started[0]
                                > Duration.ofMillis(2_500).toNanos()) {
                    return true;
                }
                tables.record(new OrderPlaced(100 + n, BigDecimal.TEN));
                return false;
            });
        }
        long elapsed = System.nanoTime() - started[0];
        assertThat(passes.get()).as("passes of the busy loop").isGreaterThan(20);
        // the first pass sweeps, then at most one sweep per second of the loop
        assertThat(sweeps.get())
                .as("sweeps in %d passes over %d ms", passes.get(), elapsed / 1_000_000)
                .isLessThanOrEqualTo(2 + (int) (elapsed / 1_000_000_000L));
        assertThat(timedOutAfter[0])
                .as("the overdue dispatch timed out while the loop stayed busy")
                .isNotNegative()
                .isLessThan(Duration.ofMillis(2_000).toNanos());
    }

    @Test
    void aPassOutsideTheLoopAlwaysSweeps() {
        Tables tables = fixture.tables();
        AtomicInteger sweeps = new AtomicInteger();
        try (RelayEngine engine = engine(MutableClock.startingNow(), countingSweeps(sweeps))) {
            for (int i = 0; i < 3; i++) {
                tables.record(new OrderPlaced(200 + i, BigDecimal.ONE));
                engine.pass();
            }
        }
        assertThat(sweeps.get()).isEqualTo(3);
    }
}
