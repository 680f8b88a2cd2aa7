package dev.outbox.relay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the explicit delay list a route stores, so the snapshot in each delivery stays explicit.
 *
 * <pre>{@code
 * RetrySchedule.exponential(Duration.ofSeconds(5), 3.0, Duration.ofHours(1), 6) // 5 s, 15 s, 45 s, 135 s, 405 s, 1215 s
 * RetrySchedule.seconds(5, 30, 120)                                              // 5 s, 30 s, 120 s
 * }</pre>
 */
public final class RetrySchedule {

    private RetrySchedule() {}

    /**
     * {@code retries} delays, the first {@code initial}, each next one {@code factor} times the
     * previous, rounded to whole seconds and capped at {@code cap}, which is at most
     * {@link Route#MAX_RETRY_DELAY_SECONDS} (30 days). {@code initial} and {@code cap} are whole seconds.
     */
    public static List<Duration> exponential(Duration initial, double factor, Duration cap, int retries) {
        long initialSeconds = wholeSeconds("initial", initial);
        long capSeconds = wholeSeconds("cap", cap);
        if (initialSeconds <= 0) {
            throw new IllegalArgumentException("initial must be positive, got " + initial);
        }
        if (capSeconds < initialSeconds) {
            throw new IllegalArgumentException("cap must be at least initial (" + initial + "), got " + cap);
        }
        if (capSeconds > Route.MAX_RETRY_DELAY_SECONDS) {
            throw new IllegalArgumentException("cap must be at most " + Route.MAX_RETRY_DELAY_SECONDS
                    + " seconds (30 days), got " + capSeconds + " seconds");
        }
        return exponentialSeconds((int) initialSeconds, factor, (int) capSeconds, retries);
    }

    /** {@code retries} equal delays of {@code delay} (whole seconds). */
    public static List<Duration> fixed(Duration delay, int retries) {
        return exponential(delay, 1.0, delay, retries);
    }

    /** The delays given in whole seconds, e.g. {@code seconds(5, 30, 120)}; {@link Route} checks their range. */
    public static List<Duration> seconds(int... seconds) {
        List<Duration> delays = new ArrayList<>(seconds.length);
        for (int s : seconds) {
            delays.add(Duration.ofSeconds(s));
        }
        return List.copyOf(delays);
    }

    /** {@link #exponential} in the routes file's terms ({@code initialSeconds}, {@code capSeconds}), naming its fields. */
    static List<Duration> exponentialSeconds(int initialSeconds, double factor, int capSeconds, int retries) {
        if (initialSeconds <= 0) {
            throw new IllegalArgumentException("initialSeconds must be positive, got " + initialSeconds);
        }
        if (!(factor >= 1.0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("factor must be a finite number >= 1, got " + factor);
        }
        if (capSeconds < initialSeconds) {
            throw new IllegalArgumentException(
                    "capSeconds must be at least initialSeconds (" + initialSeconds + "), got " + capSeconds);
        }
        if (capSeconds > Route.MAX_RETRY_DELAY_SECONDS) {
            throw new IllegalArgumentException(
                    "capSeconds must be at most " + Route.MAX_RETRY_DELAY_SECONDS + " (30 days), got " + capSeconds);
        }
        if (retries < 0 || retries > Route.MAX_RETRIES) {
            throw new IllegalArgumentException("retries must be 0.." + Route.MAX_RETRIES + ", got " + retries);
        }
        List<Duration> delays = new ArrayList<>(retries);
        double next = initialSeconds;
        for (int i = 0; i < retries; i++) {
            delays.add(Duration.ofSeconds(Math.min(capSeconds, Math.round(next))));
            next = Math.min((double) capSeconds, next * factor);
        }
        return List.copyOf(delays);
    }

    private static long wholeSeconds(String field, Duration d) {
        if (d == null) {
            throw new IllegalArgumentException(field + " must be a positive whole number of seconds, got null");
        }
        String problem = RouteChecks.wholeSecondsProblem(d);
        if (problem != null) {
            throw new IllegalArgumentException(field + " " + problem);
        }
        return d.toSeconds();
    }
}
