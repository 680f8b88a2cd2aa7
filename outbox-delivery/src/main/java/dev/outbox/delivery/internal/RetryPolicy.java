package dev.outbox.delivery.internal;

import java.util.List;
import java.util.OptionalInt;

/**
 * The retry-or-fail decision in plain Java, the same rule {@link DeliveryTransitions} applies in SQL.
 *
 * <p>{@code attempts} counts dispatches, the current one included: the first dispatch makes it 1.
 * With {@code n} delays a delivery has {@code n + 1} attempts; after a failure of attempt {@code k}
 * it waits {@code delays[k - 1]} seconds when {@code k <= n}, and fails for good otherwise.
 */
public final class RetryPolicy {

    private RetryPolicy() {}

    /** The pause before the next attempt after attempt {@code attempts} failed, or empty when it was the last. */
    public static OptionalInt nextDelaySeconds(int attempts, List<Integer> delays) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts counts the current dispatch and starts at 1, got " + attempts);
        }
        return attempts <= delays.size() ? OptionalInt.of(delays.get(attempts - 1)) : OptionalInt.empty();
    }

    /** True when attempt {@code attempts} is the last: its failure will be final. */
    public static boolean lastAttempt(int attempts, int retries) {
        return attempts > retries;
    }
}
