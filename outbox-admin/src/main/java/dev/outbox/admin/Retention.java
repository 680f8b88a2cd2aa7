package dev.outbox.admin;

import dev.outbox.delivery.internal.DurationLimits;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What retention (T10) deletes: completed deliveries older than {@code completed}, failed ones older
 * than {@code failed}, unrouted events older than {@code unrouted} (only when given: an unrouted
 * event may be waiting for a route still to be deployed), and always the routed events that have no
 * delivery left. Ages count from {@code completed_at}, {@code failed_at} and the event's
 * {@code created_at}. Each batch deletes at most {@code batchSize} rows in its own transaction. An
 * age is positive and at most 100 years ({@link DurationLimits#MAX}).
 *
 * <pre>{@code
 * Retention.of().completed(Duration.ofDays(7)).failed(Duration.ofDays(30))
 * }</pre>
 */
public record Retention(
        @Nullable Duration completed,
        @Nullable Duration failed,
        @Nullable Duration unrouted,
        int batchSize) {

    public static final int DEFAULT_BATCH_SIZE = 1_000;
    public static final int MAX_BATCH_SIZE = 100_000;

    public Retention {
        positive("completed", completed);
        positive("failed", failed);
        positive("unrouted", unrouted);
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("batch size must be from 1 to " + MAX_BATCH_SIZE + ", got " + batchSize);
        }
    }

    /** Nothing but the events with no delivery left, in batches of {@value #DEFAULT_BATCH_SIZE}. */
    public static Retention of() {
        return new Retention(null, null, null, DEFAULT_BATCH_SIZE);
    }

    public Retention completed(@Nullable Duration age) {
        return new Retention(age, failed, unrouted, batchSize);
    }

    public Retention failed(@Nullable Duration age) {
        return new Retention(completed, age, unrouted, batchSize);
    }

    public Retention unrouted(@Nullable Duration age) {
        return new Retention(completed, failed, age, batchSize);
    }

    public Retention batchSize(int size) {
        return new Retention(completed, failed, unrouted, size);
    }

    private static void positive(String what, @Nullable Duration age) {
        if (age != null && (age.isNegative() || age.isZero())) {
            throw new IllegalArgumentException(what + " age must be positive, got " + age);
        }
        if (age != null) {
            DurationLimits.atMostMax(what + " age", age);
        }
    }
}
