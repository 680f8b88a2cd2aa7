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
        java.time.Instant now = java.time.Instant.now();
        return new BenchEvent(sequence, now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000, "customer-" + (sequence % 1000), NOTE);
    }
}
