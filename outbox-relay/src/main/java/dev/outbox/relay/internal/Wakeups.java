package dev.outbox.relay.internal;

import dev.outbox.relay.ListenConnection;
import dev.outbox.relay.RelayLoggers;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits between passes of a looping relay: until a {@code NOTIFY} on the recording channel arrives
 * (a commit of new events), the sleep is over, or the relay stops. Holds one dedicated connection that
 * {@code LISTEN}s; when it breaks (a database restart), waiting falls back to plain sleeping and the
 * connection is tried again after a backoff (1 s doubling to 30 s, or at once when the relay saw the
 * database answer again); the wait that listens again ends as if notified, since commits made while
 * nobody listened sent their notifications to no one. With {@code pollOnly} (for connection poolers in
 * transaction mode) it only sleeps.
 */
final class Wakeups implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RelayLoggers.WAKEUPS);
    private static final long SLICE_MILLIS = 200;
    private static final Duration RELISTEN_FIRST = Duration.ofSeconds(1);
    private static final Duration RELISTEN_MAX = Duration.ofSeconds(30);

    private final @Nullable ListenConnection source;
    private final String channel;
    private final long lingerMillis;
    private @Nullable Connection connection;
    private long retryAtNanos = System.nanoTime();
    private Duration relistenAfter = RELISTEN_FIRST;
    private boolean lost;

    Wakeups(@Nullable ListenConnection source, String channel, Duration linger) {
        this.source = source;
        this.channel = channel;
        this.lingerMillis = linger.toMillis();
    }

    /** Tries the LISTEN connection again at the next wait, without waiting for the backoff (the database answers again). */
    void relistenNow() {
        retryAtNanos = System.nanoTime();
        relistenAfter = RELISTEN_FIRST;
    }

    /**
     * Opens the LISTEN connection when there is none (and the last failure is long enough ago); true
     * when it listens again after having lost the connection or failed to open it.
     */
    boolean listen() {
        if (source == null || connection != null || System.nanoTime() - retryAtNanos < 0) {
            return false;
        }
        Connection c = null;
        try {
            c = source.open();
            c.setAutoCommit(true);
            // LISTEN has no typed form in jOOQ; the channel is a checked lower-case identifier, rendered as a quoted
            // name
            DSL.using(c, SQLDialect.POSTGRES).execute("LISTEN {0}", DSL.name(channel));
            c.unwrap(PGConnection.class);
            connection = c;
            log.info("listening on channel {} for new events", channel);
            relistenAfter = RELISTEN_FIRST;
            boolean again = lost;
            lost = false;
            return again;
        } catch (SQLException | RuntimeException e) {
            if (!lost) { // once per outage, not once per try
                log.warn(
                        "cannot LISTEN on channel {} ({}); polling, trying again in {} s",
                        channel,
                        e.getClass().getSimpleName(),
                        relistenAfter.toSeconds());
            }
            closeQuietly(c);
            backOff();
            return false;
        }
    }

    private void backOff() {
        lost = true;
        retryAtNanos = System.nanoTime() + relistenAfter.toNanos();
        relistenAfter = relistenAfter.multipliedBy(2).compareTo(RELISTEN_MAX) > 0
                ? RELISTEN_MAX
                : relistenAfter.multipliedBy(2);
    }

    /**
     * Waits up to {@code max}; returns early when a notification arrives (true) or {@code stopped}
     * turns true (false). After the first notification it lingers a few milliseconds and takes the
     * notifications that came meanwhile, so that the pass it starts takes a burst of commits, and
     * their notifications do not start empty passes after it. Dropping them is safe here, before
     * the pass: the pass sees every event whose notification was taken.
     */
    boolean await(Duration max, BooleanSupplier stopped) throws InterruptedException {
        if (listen()) {
            return true; // listening again: what was committed meanwhile notified no one
        }
        long deadline = System.nanoTime() + max.toNanos();
        while (!stopped.getAsBoolean()) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return false;
            }
            long slice = Math.min(left, SLICE_MILLIS);
            Connection c = connection;
            if (c == null) {
                if (listen()) {
                    return true;
                }
                Thread.sleep(slice);
                continue;
            }
            try {
                PGNotification[] notifications =
                        c.unwrap(PGConnection.class).getNotifications((int) Math.max(1, slice));
                if (notifications != null && notifications.length > 0) {
                    if (lingerMillis > 0) {
                        Thread.sleep(lingerMillis);
                        c.unwrap(PGConnection.class).getNotifications(); // what arrived meanwhile, without waiting
                    }
                    return true;
                }
            } catch (SQLException e) {
                log.warn(
                        "lost the LISTEN connection ({}); polling, trying again in {} s",
                        e.getClass().getSimpleName(),
                        relistenAfter.toSeconds());
                closeQuietly(c);
                connection = null;
                backOff();
            }
        }
        return false;
    }

    /** Sleeps up to {@code max}, in slices, until {@code stopped} turns true; notifications do not end it. */
    static void pause(Duration max, BooleanSupplier stopped) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!stopped.getAsBoolean()) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return;
            }
            Thread.sleep(Math.min(left, SLICE_MILLIS));
        }
    }

    @Override
    public void close() {
        closeQuietly(connection);
        connection = null;
    }

    private static void closeQuietly(@Nullable Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                log.debug(
                        "closing the LISTEN connection failed ({})",
                        e.getClass().getSimpleName());
            }
        }
    }
}
