package dev.outbox.relay;

import dev.outbox.api.Names;
import dev.outbox.delivery.LogText;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The checks of {@link Route}'s fields, shared by both kinds and the routes file. */
final class RouteChecks {

    private RouteChecks() {}

    static void stableName(String field, @Nullable String name) {
        if (name == null || !Names.isStableName(name)) {
            throw new IllegalArgumentException(
                    field + " must match " + Names.STABLE_NAME.pattern() + ", got '" + LogText.of(name) + "'");
        }
    }

    static List<Duration> retryDelays(@Nullable List<Duration> delays) {
        if (delays == null) {
            throw new IllegalArgumentException("retryDelays must be a list (possibly empty), got null");
        }
        if (delays.size() > Route.MAX_RETRIES) {
            throw new IllegalArgumentException(
                    "retryDelays has " + delays.size() + " entries, at most " + Route.MAX_RETRIES);
        }
        for (int i = 0; i < delays.size(); i++) {
            String field = "retryDelays[" + i + "]";
            Duration delay = delays.get(i);
            if (delay == null) {
                throw new IllegalArgumentException(field + " must be a positive whole number of seconds, got null");
            }
            refuse(field, wholeSecondsProblem(delay));
            refuse(field, delayProblem(delay.toSeconds()));
        }
        return List.copyOf(delays);
    }

    static void deliveryTimeout(@Nullable Duration timeout) {
        if (timeout == null) {
            throw new IllegalArgumentException("deliveryTimeout must be a positive whole number of seconds, got null");
        }
        refuse("deliveryTimeout", wholeSecondsProblem(timeout));
        refuse("deliveryTimeout", timeoutProblem(timeout.toSeconds()));
    }

    static void ordering(@Nullable Ordering ordering) {
        refuse("ordering", ordering == null ? "must be UNORDERED, BLOCK or SKIP, got null" : null);
    }

    /** What is wrong with {@code d} as a duration of whole seconds, or null; a negative or zero one is left to the range checks. */
    static @Nullable String wholeSecondsProblem(Duration d) {
        return d.toNanosPart() != 0
                ? "must be a whole number of seconds, got " + d + " (" + d.toMillis() + " ms)"
                : null;
    }

    /** What is wrong with {@code seconds} as a retry delay, or null: 1..{@value Route#MAX_RETRY_DELAY_SECONDS}. */
    static @Nullable String delayProblem(long seconds) {
        if (seconds <= 0) {
            return "must be a positive whole number of seconds, got " + seconds;
        }
        return seconds > Route.MAX_RETRY_DELAY_SECONDS
                ? "must be at most " + Route.MAX_RETRY_DELAY_SECONDS + " seconds (30 days), got " + seconds
                : null;
    }

    /** What is wrong with {@code seconds} as a delivery timeout, or null: 1..{@value Route#MAX_DELIVERY_TIMEOUT_SECONDS}. */
    static @Nullable String timeoutProblem(long seconds) {
        if (seconds <= 0) {
            return "must be a positive whole number of seconds, got " + seconds;
        }
        return seconds > Route.MAX_DELIVERY_TIMEOUT_SECONDS
                ? "must be at most " + Route.MAX_DELIVERY_TIMEOUT_SECONDS + " seconds (7 days), got " + seconds
                : null;
    }

    static void refuse(String field, @Nullable String problem) {
        if (problem != null) {
            throw new IllegalArgumentException(field + " " + problem);
        }
    }
}
