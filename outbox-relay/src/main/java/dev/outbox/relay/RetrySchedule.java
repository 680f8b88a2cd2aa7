package dev.outbox.relay;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns a retry policy into the explicit delay list a route stores, so the snapshot in each delivery
 * stays explicit.
 *
 * <pre>{@code
 * RetrySchedule.exponential(5, 3.0, 3600, 6) // [5, 15, 45, 135, 405, 1215]
 * }</pre>
 */
public final class RetrySchedule {

    private RetrySchedule() {}

    /**
     * {@code retries} delays, the first {@code initialSeconds}, each next one {@code factor} times the
     * previous, rounded to whole seconds and capped at {@code capSeconds}, which is at most
     * {@link Route#MAX_RETRY_DELAY_SECONDS} (30 days).
     */
    public static List<Integer> exponential(int initialSeconds, double factor, int capSeconds, int retries) {
        if (initialSeconds <= 0) {
            throw new IllegalArgumentException("initialSeconds must be positive, got " + initialSeconds);
        }
        if (!(factor >= 1.0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException("factor must be a finite number >= 1, got " + factor);
        }
        if (capSeconds < initialSeconds) {
            throw new IllegalArgumentException("capSeconds must be at least initialSeconds (" + initialSeconds + "), got " + capSeconds);
        }
        if (capSeconds > Route.MAX_RETRY_DELAY_SECONDS) {
            throw new IllegalArgumentException("capSeconds must be at most " + Route.MAX_RETRY_DELAY_SECONDS + " (30 days), got " + capSeconds);
        }
        if (retries < 0 || retries > Route.MAX_RETRIES) {
            throw new IllegalArgumentException("retries must be 0.." + Route.MAX_RETRIES + ", got " + retries);
        }
        List<Integer> delays = new ArrayList<>(retries);
        double next = initialSeconds;
        for (int i = 0; i < retries; i++) {
            delays.add((int) Math.min(capSeconds, Math.round(next)));
            next = Math.min((double) capSeconds, next * factor);
        }
        return List.copyOf(delays);
    }

    /** {@code retries} equal delays of {@code seconds}. */
    public static List<Integer> fixed(int seconds, int retries) {
        return exponential(seconds, 1.0, seconds, retries);
    }
}
