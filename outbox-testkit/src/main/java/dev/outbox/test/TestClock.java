package dev.outbox.test;

import dev.outbox.delivery.internal.DurationLimits;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * A clock a test moves forward by hand, for {@link OutboxTestKit.Builder#clock(Clock)}: a retry
 * scheduled 30 s ahead runs at the next {@link OutboxTestKit#runJobs()} after {@code advance(30 s)}.
 * Thread-safe; always in UTC.
 */
public final class TestClock extends Clock {

    private final Object lock = new Object(); // not the clock itself: synchronized is not part of the API
    private volatile Instant now; // written under lock

    private TestClock(Instant start) {
        this.now = Objects.requireNonNull(start, "start");
    }

    /** Starts at the current time (to the microsecond, as PostgreSQL stores it), beside rows stamped by the system clock. */
    public static TestClock startingNow() {
        return new TestClock(Instant.now().truncatedTo(ChronoUnit.MICROS));
    }

    /** Starts at {@code start}. */
    public static TestClock at(Instant start) {
        return new TestClock(start);
    }

    /**
     * Moves the clock forward by {@code duration}.
     *
     * @throws IllegalArgumentException for a negative duration, or one of more than 100 years
     */
    public void advance(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must not be negative, got " + duration);
        }
        DurationLimits.atMostMax("TestClock.advance's duration", duration);
        synchronized (lock) {
            now = now.plus(duration);
        }
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
