package dev.outbox.delivery.internal;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * What a loop did, as one INFO line at most once per {@link #INTERVAL}: the passes and the sums of
 * their counts, the zeros left out; an interval in which every count stayed zero writes nothing.
 * So that someone watching a busy loop's log sees that it works, and an idle one stays quiet. The
 * line is written when the interval has passed, at {@link #flushIfDue()} (the relay's loop calls
 * it), and by {@link #flush()}. Thread-safe.
 */
public final class LogSummary {

    /** How often the line is written at most. */
    public static final Duration INTERVAL = Duration.ofMinutes(1);

    private final Logger log;
    private final String subject;
    private final List<String> names;
    private final LongSupplier nanoTime;
    private final long intervalNanos;
    private final long[] sums;
    private long passes;
    private long intervalStart;

    /** {@code names} of the counts each {@link #add} gives, in that order ("events routed", ...). */
    public LogSummary(Logger log, String subject, List<String> names) {
        this(log, subject, names, System::nanoTime, INTERVAL);
    }

    LogSummary(Logger log, String subject, List<String> names, LongSupplier nanoTime, Duration interval) {
        this.log = log;
        this.subject = subject;
        this.names = List.copyOf(names);
        this.nanoTime = nanoTime;
        this.intervalNanos = interval.toNanos();
        this.sums = new long[this.names.size()];
        this.intervalStart = nanoTime.getAsLong();
    }

    /** One pass and its counts, in the order of the names. */
    public synchronized void add(long... counts) {
        if (counts.length != sums.length) {
            throw new IllegalArgumentException(
                    sums.length + " counts expected (" + String.join(", ", names) + "), got " + counts.length);
        }
        passes++;
        for (int i = 0; i < counts.length; i++) {
            sums[i] += counts[i];
        }
    }

    /** Writes the line when the interval has passed. */
    public synchronized void flushIfDue() {
        if (nanoTime.getAsLong() - intervalStart >= intervalNanos) {
            flush();
        }
    }

    /** Writes the line now, when anything was counted, and starts a new interval. */
    public synchronized void flush() {
        long now = nanoTime.getAsLong();
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < sums.length; i++) {
            if (sums[i] != 0) {
                line.append(", ")
                        .append(String.format(Locale.ROOT, "%,d", sums[i]))
                        .append(' ')
                        .append(names.get(i));
            }
        }
        if (!line.isEmpty()) {
            long seconds = Math.max(1, Math.round((now - intervalStart) / 1e9));
            log.info(
                    "{} in the last {} s: {} {}{}",
                    subject,
                    seconds,
                    String.format(Locale.ROOT, "%,d", passes),
                    passes == 1 ? "pass" : "passes",
                    line);
        }
        java.util.Arrays.fill(sums, 0);
        passes = 0;
        intervalStart = now;
    }
}
