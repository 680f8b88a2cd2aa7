package dev.outbox.faults;

import java.util.List;
import java.util.Locale;

/**
 * How the run bore its load (issue 37): the deepest the job queue got, how fast completions came back
 * after the last fault, how much the processes logged, and how many deliveries failed without their
 * handler ever running.
 *
 * @param peakReadyMessages the most ready messages seen in the job queue (passive declaration every
 *     250 ms; -1 when it could never be read)
 * @param queueBound what the relays promise: every relay may add up to its bound and one dispatch batch
 *     over a reading of the broker's count, so {@code relays × (maxQueueDepth + dispatchBatchSize)}
 * @param recoverySeconds from the last fault until the goodput kept up with the offered rate ({@link
 *     #recovery}); NaN when the scenario has no recovery period or it never kept up
 * @param goodputRatio completions divided by events recorded, from the recovery until the producers
 *     stopped; NaN without a recovery
 * @param logBytes bytes the relays and workers wrote to their logs, every start of each together
 * @param warnLines their WARN lines
 * @param errorLines their ERROR lines
 * @param failedWithoutCall deliveries that ended failed without any call of their handler
 * @param failed deliveries that ended failed
 */
public record Load(
        long peakReadyMessages,
        long queueBound,
        double recoverySeconds,
        double goodputRatio,
        long logBytes,
        long warnLines,
        long errorLines,
        long failedWithoutCall,
        long failed) {

    /** The goodput counts as back when it is at least this share of what was offered in the same window. */
    static final double KEEPS_UP = 0.8;
    /** The window the goodput is measured over, in samples (one a second). */
    static final int WINDOW = 5;

    /** One reading, once a second: completed deliveries and recorded events so far. */
    record Sample(double seconds, long completed, long events) {}

    /**
     * When the goodput was back, as seconds after {@code from}: the end of the first
     * {@link #WINDOW}-second window from which on every window, until {@code until}, completed at least
     * {@link #KEEPS_UP} of the events recorded in it (the end, not the start: by then it had kept up
     * for a whole window); NaN when even the last window fell behind.
     */
    static double recovery(List<Sample> samples, double from, double until) {
        List<Sample> in = samples.stream()
                .filter(s -> s.seconds() >= from && s.seconds() <= until)
                .toList();
        int lastStart = in.size() - 1 - WINDOW;
        if (lastStart < 0) {
            return Double.NaN;
        }
        int recovered = -1;
        for (int i = lastStart; i >= 0; i--) {
            if (!keepsUp(in.get(i), in.get(i + WINDOW))) {
                break;
            }
            recovered = i;
        }
        return recovered < 0 ? Double.NaN : in.get(recovered + WINDOW).seconds() - from;
    }

    /** Completions divided by events recorded from {@code from} (seconds) until the last sample before {@code until}. */
    static double goodput(List<Sample> samples, double from, double until) {
        if (Double.isNaN(from)) {
            return Double.NaN;
        }
        List<Sample> in = samples.stream()
                .filter(s -> s.seconds() >= from && s.seconds() <= until)
                .toList();
        if (in.size() < 2) {
            return Double.NaN;
        }
        Sample a = in.get(0);
        Sample b = in.get(in.size() - 1);
        long offered = b.events() - a.events();
        return offered == 0 ? Double.NaN : (b.completed() - a.completed()) / (double) offered;
    }

    private static boolean keepsUp(Sample a, Sample b) {
        long offered = b.events() - a.events();
        return b.completed() - a.completed() >= KEEPS_UP * offered;
    }

    /** The rows of the report's table. */
    void rows(java.util.function.BiConsumer<String, Object> row) {
        row.accept(
                "peak ready messages in the job queue (read every 250 ms) / what the relays bound it to",
                (peakReadyMessages < 0 ? "never read" : String.format(Locale.ROOT, "%,d", peakReadyMessages))
                        + String.format(Locale.ROOT, " / %,d", queueBound));
        row.accept(
                "**goodput back** (every " + WINDOW + " s window completes ≥ " + Math.round(KEEPS_UP * 100)
                        + " % of what was recorded in it) after the last fault",
                Double.isNaN(recoverySeconds) ? "n/a" : String.format(Locale.ROOT, "%.0f s", recoverySeconds));
        row.accept(
                "completions / events recorded, from then until the producers stopped",
                Double.isNaN(goodputRatio) ? "n/a" : String.format(Locale.ROOT, "%.2f", goodputRatio));
        row.accept(
                "**deliveries failed without a handler call** / failed",
                String.format(Locale.ROOT, "%,d / %,d", failedWithoutCall, failed));
        row.accept(
                "relay and worker logs: bytes / WARN lines / ERROR lines",
                String.format(Locale.ROOT, "%,d / %,d / %,d", logBytes, warnLines, errorLines));
    }
}
