package dev.outbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.testing.Intercept;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The NOTIFY that wakes a relay. Each test listens on a channel of its own: channels are
 * database-wide, and other test JVMs may record on the default one at the same time.
 */
class RecordNotifyIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    static DSLContext dsl;

    String channel;
    Connection listener;

    @BeforeAll
    static void setUp() {
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    }

    @BeforeEach
    void listen() throws SQLException {
        channel = "outbox_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        listener = db.server().connect();
        try (Statement s = listener.createStatement()) {
            s.execute("LISTEN " + channel);
        }
    }

    @AfterEach
    void stopListening() throws SQLException {
        listener.close();
    }

    private Outbox outbox() {
        return Outbox.builder().tables(db.tables()).notifyChannel(channel).build();
    }

    /** Waits (up to 10 s) for at least one notification, then returns every one that has arrived. */
    private List<PGNotification> awaitNotifications() throws SQLException {
        PGConnection pg = listener.unwrap(PGConnection.class);
        List<PGNotification> received = new ArrayList<>();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (received.isEmpty() && System.nanoTime() < deadline) {
            PGNotification[] batch = pg.getNotifications(500);
            if (batch != null) {
                received.addAll(List.of(batch));
            }
        }
        PGNotification[] rest = pg.getNotifications(1);
        if (rest != null) {
            received.addAll(List.of(rest));
        }
        return received;
    }

    private static void commitOne(Outbox outbox) {
        dsl.transaction(tx -> outbox.record(tx.dsl(), new OrderPlaced(1L)));
    }

    @Test
    void notifiesTheChannelWhenTheTransactionCommits() throws SQLException {
        commitOne(outbox());

        List<PGNotification> received = awaitNotifications();

        assertThat(received).hasSize(1);
        assertThat(received.get(0).getName()).isEqualTo(channel);
    }

    @Test
    void sendsNothingWhenTheTransactionRollsBack() throws SQLException {
        Outbox outbox = outbox();
        assertThatThrownBy(() -> dsl.transaction(tx -> {
                    outbox.record(tx.dsl(), new OrderPlaced(1L));
                    throw new IllegalStateException("rolled back");
                }))
                .hasMessage("rolled back");
        // PostgreSQL delivers in commit order: a notification of the rolled-back transaction would
        // have arrived before the fence's

        assertThat(notificationsBeforeTheFence()).isZero();
    }

    @Test
    void aRecordingAfterARolledBackOneNotifiesWithoutAnInterval() throws SQLException {
        Outbox outbox = Outbox.builder()
                .tables(db.tables())
                .notifyChannel(channel)
                .notifyInterval(Duration.ZERO)
                .build();
        assertThatThrownBy(() -> dsl.transaction(tx -> {
                    outbox.record(tx.dsl(), new OrderPlaced(1L));
                    throw new IllegalStateException("rolled back");
                }))
                .hasMessage("rolled back");
        commitOne(outbox);

        assertThat(notificationsBeforeTheFence()).isEqualTo(1);
    }

    @Test
    void byDefaultRecordingsWithinFiveMillisecondsOfTheLastNotificationSendNone() throws SQLException {
        MutableClock clock = MutableClock.startingNow();
        Outbox outbox = Outbox.builder()
                .tables(db.tables())
                .notifyChannel(channel)
                .clock(clock)
                .build();
        commitOne(outbox); // notifies
        clock.advance(Duration.ofMillis(4));
        commitOne(outbox);
        clock.advance(Duration.ofMillis(1));
        commitOne(outbox); // 5 ms after the first: notifies

        assertThat(notificationsBeforeTheFence()).isEqualTo(2);
        assertThat(Outbox.DEFAULT_NOTIFY_INTERVAL).isEqualTo(Duration.ofMillis(5));
    }

    @Test
    void withoutAnIntervalEveryRecordingTransactionNotifies() throws SQLException {
        Outbox outbox = Outbox.builder()
                .tables(db.tables())
                .notifyChannel(channel)
                .clock(Clock.fixed(Instant.now(), ZoneOffset.UTC))
                .notifyInterval(Duration.ZERO)
                .build();
        commitOne(outbox);
        commitOne(outbox);
        commitOne(outbox);

        assertThat(notificationsBeforeTheFence()).isEqualTo(3);
    }

    @Test
    void recordsOneEventAndItsNotificationInOneStatement() throws SQLException {
        // PostgreSQL serialises the commits of notifying transactions: each round trip more in such a
        // transaction is paid by every producer (docs/BENCHMARKS.md, R1)
        Outbox outbox = outbox();
        AtomicInteger statements = new AtomicInteger();
        try (Connection connection = db.dataSource().getConnection()) {
            Connection counting = Intercept.of(Connection.class, connection, call -> {
                if (call.name().startsWith("prepare") || call.name().equals("createStatement")) {
                    statements.incrementAndGet();
                }
                return call.proceed();
            });
            DSL.using(counting, SQLDialect.POSTGRES).transaction(tx -> outbox.record(tx.dsl(), new OrderPlaced(1L)));
        }

        assertThat(statements).hasValue(1);
        assertThat(awaitNotifications()).hasSize(1);
    }

    @Test
    void sendsOneNotificationForABatch() throws SQLException {
        Outbox outbox = outbox();
        dsl.transaction(tx ->
                outbox.recordAll(tx.dsl(), List.of(new OrderPlaced(1L), new OrderPlaced(2L), new OrderPlaced(3L))));

        assertThat(awaitNotifications()).hasSize(1);
    }

    @Test
    void sendsNothingWhenRecordIfAbsentFindsTheIdRecorded() throws SQLException {
        Outbox outbox = outbox();
        java.util.UUID id = IdGenerator.uuidV7().next();
        dsl.transaction(
                tx -> outbox.record(tx.dsl(), NewEvent.of(new OrderPlaced(1L)).withId(id)));
        assertThat(awaitNotifications()).hasSize(1);

        dsl.transaction(tx -> assertThat(outbox.recordIfAbsent(
                        tx.dsl(), NewEvent.of(new OrderPlaced(1L)).withId(id)))
                .isFalse());

        assertThat(notificationsBeforeTheFence()).isZero();
    }

    @Test
    void sendsNothingWhenNotificationsAreOff() throws SQLException {
        Outbox silent =
                Outbox.builder().tables(db.tables()).notifications(false).build();
        dsl.transaction(tx -> silent.record(tx.dsl(), new OrderPlaced(1L)));
        commitOne(outbox()); // the fence

        assertThat(awaitNotifications()).hasSize(1);
        assertThat(silent.notifyChannel()).isEmpty();
    }

    @Test
    void usesTheDefaultChannelUnlessToldOtherwise() {
        assertThat(Outbox.builder().build().notifyChannel()).contains("outbox_events");
        assertThat(Outbox.DEFAULT_NOTIFY_CHANNEL).isEqualTo("outbox_events");
    }

    @Test
    void refusesAChannelThatIsNotAPlainIdentifier() {
        assertThatThrownBy(() -> Outbox.builder().notifyChannel("Outbox Events"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("notifyChannel");
        assertThatThrownBy(() -> Outbox.builder().notifyChannel("")).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Commits a NOTIFY with the payload {@code fence} and waits (up to 10 s) for it: PostgreSQL delivers
     * in commit order, so every notification of the transactions committed before has arrived by then.
     * Returns how many did (the recordings send an empty payload).
     */
    private int notificationsBeforeTheFence() throws SQLException {
        dsl.select(DSL.function("pg_notify", Object.class, DSL.val(channel), DSL.val("fence")))
                .fetch();
        PGConnection pg = listener.unwrap(PGConnection.class);
        int before = 0;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            PGNotification[] batch = pg.getNotifications(500);
            for (PGNotification n : batch == null ? new PGNotification[0] : batch) {
                if (n.getParameter().equals("fence")) {
                    return before;
                }
                before++;
            }
        }
        throw new AssertionError("the fence's notification did not arrive within 10 s");
    }

    private Outbox spaced(Clock clock) {
        return Outbox.builder()
                .tables(db.tables())
                .notifyChannel(channel)
                .clock(clock)
                .notifyInterval(Duration.ofMillis(5))
                .build();
    }

    private static int events() {
        return OutboxDsl.mapped(dsl, db.tables()).fetchCount(dev.outbox.schema.Tables.OUTBOX_EVENTS);
    }

    @Test
    void withAnIntervalTheRecordingsWithinItOfTheLastNotificationSendNone() throws SQLException {
        MutableClock clock = MutableClock.startingNow();
        Outbox outbox = spaced(clock);
        int before = events();
        commitOne(outbox); // notifies
        clock.advance(Duration.ofMillis(4));
        commitOne(outbox);
        dsl.transaction(tx -> outbox.recordAll(tx.dsl(), List.of(new OrderPlaced(2L), new OrderPlaced(3L))));

        assertThat(notificationsBeforeTheFence()).isEqualTo(1);
        assertThat(events() - before).isEqualTo(4);
    }

    @Test
    void withAnIntervalTheFirstRecordingAfterItNotifiesAgain() throws SQLException {
        MutableClock clock = MutableClock.startingNow();
        Outbox outbox = spaced(clock);
        commitOne(outbox);
        clock.advance(Duration.ofMillis(5));
        commitOne(outbox);
        clock.advance(Duration.ofMillis(1));
        commitOne(outbox);

        assertThat(notificationsBeforeTheFence()).isEqualTo(2);
    }

    @Test
    void withAnIntervalARecordingThatWritesNothingLeavesTheNotificationToTheNext() throws SQLException {
        MutableClock clock = MutableClock.startingNow();
        Outbox outbox = spaced(clock);
        UUID id = IdGenerator.uuidV7().next();
        Outbox silent =
                Outbox.builder().tables(db.tables()).notifications(false).build();
        dsl.transaction(
                tx -> silent.record(tx.dsl(), NewEvent.of(new OrderPlaced(1L)).withId(id)));

        dsl.transaction(tx -> assertThat(outbox.recordIfAbsent(
                        tx.dsl(), NewEvent.of(new OrderPlaced(1L)).withId(id)))
                .isFalse());
        commitOne(outbox); // at the same instant: the slot was given back, so this one notifies

        assertThat(notificationsBeforeTheFence()).isEqualTo(1);
    }

    @Test
    void withAnIntervalARecordingWhoseInsertFailsLeavesTheNotificationToTheNext() throws SQLException {
        MutableClock clock = MutableClock.startingNow();
        Outbox outbox = spaced(clock);
        assertThatThrownBy(() -> dsl.transaction(tx -> {
                    try {
                        tx.dsl().execute("SELECT 1 / 0");
                    } catch (org.jooq.exception.DataAccessException e) {
                        // the transaction is aborted: the recording's insert fails
                    }
                    outbox.record(tx.dsl(), new OrderPlaced(1L));
                }))
                .isInstanceOf(org.jooq.exception.DataAccessException.class)
                .hasMessageContaining("aborted");
        commitOne(outbox); // at the same instant: the failed recording gave its slot back, so this one notifies

        assertThat(notificationsBeforeTheFence()).isEqualTo(1);
    }

    @Test
    void withAnIntervalAClockSetBackEndsTheInterval() throws SQLException {
        MutableClock clock = MutableClock.startingNow();
        Outbox outbox = spaced(clock);
        commitOne(outbox);
        clock.advance(Duration.ofHours(-1));
        commitOne(outbox);

        assertThat(notificationsBeforeTheFence()).isEqualTo(2);
    }

    @Test
    void refusesANotifyIntervalOutsideZeroToOneSecond() {
        assertThatThrownBy(() -> Outbox.builder().notifyInterval(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("notifyInterval must be from 0 to 1 s, got PT-0.001S");
        assertThatThrownBy(() -> Outbox.builder().notifyInterval(Duration.ofMillis(1_001)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("notifyInterval");
        assertThat(Outbox.builder().notifyInterval(Duration.ofSeconds(1))).isNotNull();
    }
}
