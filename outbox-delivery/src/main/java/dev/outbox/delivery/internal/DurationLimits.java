package dev.outbox.delivery.internal;

import java.time.Duration;

/**
 * The one rule for durations given as settings and arguments: none is longer than {@link #MAX}, so
 * that no age, timeout or clock step can overflow the arithmetic of {@code java.time} or a timestamp
 * PostgreSQL stores ({@code now().minus(age)}, {@code deadline.toNanos()}); a timeout that means
 * "no limit" saturates instead ({@link #saturatedNanos(Duration)}).
 */
public final class DurationLimits {

    /** The longest duration a setting takes: 100 years (36,500 days). */
    public static final Duration MAX = Duration.ofDays(36_500);

    private DurationLimits() {}

    /**
     * {@code value} when it is at most {@link #MAX}, else an {@link IllegalArgumentException}
     * "{@code what} must be at most 36500 days (100 years), got ...".
     */
    public static Duration atMostMax(String what, Duration value) {
        if (value.compareTo(MAX) > 0) {
            throw new IllegalArgumentException(
                    what + " must be at most " + MAX.toDays() + " days (100 years), got " + value);
        }
        return value;
    }

    /** {@code value} in nanoseconds, {@link Long#MAX_VALUE} (about 292 years, "no limit") when it does not fit; 0 for a negative one. */
    public static long saturatedNanos(Duration value) {
        if (value.isNegative()) {
            return 0;
        }
        try {
            return value.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
