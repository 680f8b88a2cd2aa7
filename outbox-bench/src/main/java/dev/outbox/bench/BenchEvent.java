package dev.outbox.bench;

import dev.outbox.api.EventType;

/**
 * The benchmark's event: about 300 bytes of JSON. {@code recordedAtMicros} is the wall clock when it
 * was recorded, so that a consumer in another process can measure commit→consumed latency.
 */
@EventType("bench.event")
public record BenchEvent(long sequence, long recordedAtMicros, String customer, String note) {

    static final String NOTE = "x".repeat(200);

    static BenchEvent next(long sequence) {
        return new BenchEvent(sequence, nowMicros(), "customer-" + (sequence % 1000), NOTE);
    }

    /** The wall clock in microseconds since the epoch, as every process of a run reads it. */
    static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }
}
