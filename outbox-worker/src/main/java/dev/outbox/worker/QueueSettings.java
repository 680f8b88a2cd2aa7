package dev.outbox.worker;

/**
 * How one queue is consumed: {@code concurrency} handler threads, and at most {@code prefetch}
 * unacknowledged messages held by the worker (the broker's QoS). A prefetch above the concurrency keeps
 * the handler threads fed while outcomes are being written.
 *
 * @param concurrency handler threads, 1..1000
 * @param prefetch unacknowledged messages, 1..65535, at least {@code concurrency}
 */
public record QueueSettings(int concurrency, int prefetch) {

    public static final int DEFAULT_CONCURRENCY = 4;
    public static final int DEFAULT_PREFETCH = 100;

    public QueueSettings {
        if (concurrency < 1 || concurrency > 1000) {
            throw new IllegalArgumentException("QueueSettings.concurrency must be 1..1000, got " + concurrency);
        }
        if (prefetch < 1 || prefetch > 65_535) {
            throw new IllegalArgumentException("QueueSettings.prefetch must be 1..65535, got " + prefetch);
        }
        if (prefetch < concurrency) {
            throw new IllegalArgumentException("QueueSettings.prefetch (" + prefetch
                    + ") must be at least the concurrency (" + concurrency + "), or handler threads sit idle");
        }
    }

    /** {@value #DEFAULT_CONCURRENCY} threads, prefetch {@value #DEFAULT_PREFETCH}. */
    public static QueueSettings defaults() {
        return new QueueSettings(DEFAULT_CONCURRENCY, DEFAULT_PREFETCH);
    }

    public static QueueSettings of(int concurrency, int prefetch) {
        return new QueueSettings(concurrency, prefetch);
    }
}
