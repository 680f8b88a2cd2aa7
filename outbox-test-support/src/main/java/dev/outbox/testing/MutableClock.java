package dev.outbox.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/** A clock that tests move by hand. */
public final class MutableClock extends Clock {

    private final Object lock = new Object(); // not the clock itself: synchronized is not part of the API
    private volatile Instant now; // written under lock

    public MutableClock(Instant start) {
        this.now = start;
    }

    /** Starts at the current time, so that rows it stamps sort with rows stamped by the system clock. */
    public static MutableClock startingNow() {
        return new MutableClock(Instant.now().truncatedTo(ChronoUnit.MICROS));
    }

    public void advance(Duration by) {
        synchronized (lock) {
            now = now.plus(by);
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
