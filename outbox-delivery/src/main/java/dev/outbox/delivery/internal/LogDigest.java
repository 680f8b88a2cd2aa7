package dev.outbox.delivery.internal;

import dev.outbox.delivery.LogText;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Log lines that stay readable under overload: of what happens to many deliveries at once
 * (dispatches that time out, stale messages dropped, retries scheduled after a timeout) the first of
 * each kind and queue in an {@link #INTERVAL} is logged by the caller in a line of its own, the rest
 * are counted and written as one WARNING with the count and one sample; final failures stay one
 * ERROR each, but at most {@link #ERRORS_PER_INTERVAL} per interval, the rest counted in one ERROR
 * line. Counts are written when the interval has passed, at the next call or
 * {@link #flushIfDue()} (the relay's loop and the worker's lookup thread call it), and by
 * {@link #flush()}. Thread-safe.
 *
 * <pre>{@code
 * if (digest.warn("dispatch timed out before any worker took it", queue, "delivery " + id)) {
 *     log.warn(...); // the first of the interval, in full
 * }
 * if (digest.error("delivery " + id)) {
 *     log.error(...); // one line for this failure
 * }
 * }</pre>
 */
public final class LogDigest {

    /** How often the counts are written. */
    public static final Duration INTERVAL = Duration.ofSeconds(10);
    /** Final failures logged one by one per interval; the rest are counted. */
    public static final int ERRORS_PER_INTERVAL = 20;

    private record Key(String what, String queue) {}

    private static final class Tally {
        long more;
        String sample = "";
    }

    private final Logger log;
    private final LongSupplier nanoTime;
    private final long intervalNanos;
    private final Map<Key, Tally> warnings = new LinkedHashMap<>();
    private long intervalStart;
    private int errors;
    private long suppressedErrors;
    private String suppressedSample = "";

    public LogDigest(Logger log) {
        this(log, System::nanoTime, INTERVAL);
    }

    LogDigest(Logger log, LongSupplier nanoTime, Duration interval) {
        this.log = log;
        this.nanoTime = nanoTime;
        this.intervalNanos = interval.toNanos();
        this.intervalStart = nanoTime.getAsLong();
    }

    /**
     * One occurrence of {@code what} in {@code queue} (printed through {@link LogText}): true for the
     * first of the interval, which the caller logs in full; the others are counted, {@code sample}
     * (ids and safe codes only) naming the first one counted.
     */
    public synchronized boolean warn(String what, String queue, String sample) {
        flushIfDue();
        Key key = new Key(what, queue);
        Tally tally = warnings.get(key);
        if (tally == null) {
            warnings.put(key, new Tally());
            return true;
        }
        if (tally.more++ == 0) {
            tally.sample = sample;
        }
        return false;
    }

    /**
     * Whether the caller logs its final failure now, in a line of its own: true for the first
     * {@link #ERRORS_PER_INTERVAL} of an interval; otherwise the failure is counted (with
     * {@code sample} for the first one counted) and written with the others at the end of the interval.
     */
    public synchronized boolean error(String sample) {
        flushIfDue();
        if (errors < ERRORS_PER_INTERVAL) {
            errors++;
            return true;
        }
        if (suppressedErrors++ == 0) {
            suppressedSample = sample;
        }
        return false;
    }

    /** Writes the counts when the interval has passed. */
    public synchronized void flushIfDue() {
        if (nanoTime.getAsLong() - intervalStart >= intervalNanos) {
            flush();
        }
    }

    /** Writes the counts now and starts a new interval. */
    public synchronized void flush() {
        long now = nanoTime.getAsLong();
        long seconds = Math.max(1, Math.round((now - intervalStart) / 1e9));
        for (Map.Entry<Key, Tally> e : warnings.entrySet()) {
            if (e.getValue().more > 0) {
                log.warn(
                        "{} more × {} (queue {}) in the last {} s, e.g. {}",
                        e.getValue().more,
                        e.getKey().what(),
                        LogText.of(e.getKey().queue()),
                        seconds,
                        e.getValue().sample);
            }
        }
        if (suppressedErrors > 0) {
            log.error(
                    "{} more delivery(ies) failed for good in the last {} s than are logged one by one ({} per {} s), e.g. {}",
                    suppressedErrors,
                    seconds,
                    ERRORS_PER_INTERVAL,
                    intervalNanos / 1_000_000_000L,
                    suppressedSample);
        }
        warnings.clear();
        errors = 0;
        suppressedErrors = 0;
        suppressedSample = "";
        intervalStart = now;
    }
}
