package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.Outbox;
import dev.outbox.testing.MutableClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A recording that sends no NOTIFY (one was sent less than the notify interval before it) and whose
 * transaction commits after the pass that NOTIFY started: a listening relay finds it soon after, not
 * after its sleep. So does a relay that only polls, for an event committed soon after a pass that
 * found work.
 */
class QuietRecordingIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    /** Channels are database-wide: one of this test alone, so that no other relay's producers wake this one. */
    final String channel =
            "outbox_quiet_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);

    @Test
    void aQuietRecordingThatCommitsAfterTheNotifiedPassIsRoutedWithinASecond() throws Exception {
        MutableClock producerClock =
                MutableClock.startingNow(); // the recordings' notify interval: still within it unless moved
        Outbox outbox = Outbox.builder()
                .tables(fixture.db.tables())
                .notifyChannel(channel)
                .clock(producerClock)
                .build();
        Routes routes = Routes.builder()
                .route("order.placed", Route.job("confirm", fixture.queue("quiet"), List.of(), Duration.ofSeconds(60)))
                .build();
        // a sleep far longer than the test waits: only a wake-up or a re-read can route in time
        fixture.closeAfterEach(fixture.relay()
                .routes(routes)
                .notifyChannel(channel)
                .sleep(Duration.ofSeconds(60))
                .build()
                .start());

        UUID first = recordAndCommit(outbox, 1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> fixture.tables().event(first).getRoutedAt() != null);
        await().atMost(Duration.ofSeconds(10))
                .until(this::relayListens); // a NOTIFY before the LISTEN would reach no one

        producerClock.advance(Duration.ofSeconds(1)); // the interval is over: the next recording notifies
        try (Connection a = fixture.db.dataSource().getConnection();
                Connection b = fixture.db.dataSource().getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            UUID notifying = outbox.record(dsl(a), new Events.OrderPlaced(2, BigDecimal.ONE));
            UUID quiet =
                    outbox.record(dsl(b), new Events.OrderPlaced(3, BigDecimal.ONE)); // within the interval: no NOTIFY
            a.commit();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> fixture.tables().event(notifying).getRoutedAt() != null);
            Thread.sleep(200); // the pass that NOTIFY started has ended, and the relay waits again
            assertThat(fixture.tables()
                            .dsl()
                            .fetchCount(
                                    dev.outbox.schema.Tables.OUTBOX_EVENTS,
                                    dev.outbox.schema.Tables.OUTBOX_EVENTS.ID.eq(quiet)))
                    .as("not committed yet")
                    .isZero();
            b.commit();

            await().atMost(Duration.ofSeconds(2))
                    .until(() -> fixture.tables().event(quiet).getRoutedAt() != null);
        }
    }

    @Test
    void aPollingRelayLooksAgainSoonAfterAPassThatFoundWork() throws Exception {
        Outbox outbox = Outbox.builder()
                .tables(fixture.db.tables())
                .notifications(false)
                .build();
        // polling only, with a sleep far longer than the test waits: only a look soon after the busy passes routes in
        // time
        waitingAfterItsBusyPasses(outbox, fixture.relay().notifications(false), "polled");

        UUID next = recordAndCommit(outbox, 2); // committed while the loop waits after the passes that found work

        await().atMost(Duration.ofSeconds(2))
                .until(() -> fixture.tables().event(next).getRoutedAt() != null);
    }

    @Test
    void theLooksAfterABusyPassThatFindNothingAreNotPasses() throws Exception {
        Outbox outbox = Outbox.builder()
                .tables(fixture.db.tables())
                .notifyChannel(channel)
                .build();
        MeterRegistry registry =
                waitingAfterItsBusyPasses(outbox, fixture.relay().notifyChannel(channel), "looked");

        Thread.sleep(1_500); // the looks at 10, 20, 40 ... 640 ms after the busy pass, 1,270 ms in all, then the sleep

        // the first idle pass, and at most one more where a look came when the sweep was due
        assertThat(passes(registry, "idle")).isBetween(1L, 2L);
    }

    /**
     * Records an event, starts {@code relay} looping with a sleep of 60 s, and returns once it has
     * routed the event and a pass after that found nothing: the loop now waits, taking its looks.
     * Returns the registry that counts its passes.
     */
    private MeterRegistry waitingAfterItsBusyPasses(Outbox outbox, OutboxRelay.Builder relay, String queue)
            throws Exception {
        Routes routes = Routes.builder()
                .route("order.placed", Route.job("confirm", fixture.queue(queue), List.of(), Duration.ofSeconds(60)))
                .build();
        MeterRegistry registry = new SimpleMeterRegistry();
        UUID first = recordAndCommit(outbox, 1);
        fixture.closeAfterEach(relay.routes(routes)
                .sleep(Duration.ofSeconds(60))
                .meterRegistry(registry)
                .build()
                .start());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> fixture.tables().event(first).getRoutedAt() != null);
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(2))
                .until(() -> passes(registry, "idle") > 0);
        return registry;
    }

    private static long passes(MeterRegistry registry, String outcome) {
        Timer passes =
                registry.find("outbox.relay.pass").tag("outcome", outcome).timer();
        return passes == null ? 0 : passes.count();
    }

    private boolean relayListens() {
        return fixture.tables()
                .dsl()
                .fetchExists(DSL.selectOne()
                        .from("pg_stat_activity")
                        .where(
                                "datname = current_database() and query = {0}",
                                DSL.inline("LISTEN \"" + channel + "\"")));
    }

    private UUID recordAndCommit(Outbox outbox, long orderId) throws Exception {
        try (Connection c = fixture.db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            UUID id = outbox.record(dsl(c), new Events.OrderPlaced(orderId, BigDecimal.ONE));
            c.commit();
            return id;
        }
    }

    private static DSLContext dsl(Connection c) {
        return DSL.using(c, SQLDialect.POSTGRES);
    }
}
