package dev.outbox.admin;

import dev.outbox.api.LogText;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Which failed deliveries an operation applies to; every criterion given must hold. Start from
 * {@link #all()} and narrow it:
 *
 * <pre>{@code
 * FailedFilter.all().queue("emails").reason("timeout").failedAfter(Instant.parse("2026-03-01T00:00:00Z"))
 * }</pre>
 *
 * @param queue the queue the delivery goes to (job routes), or null for any
 * @param exchange the exchange the delivery is published to (publish routes), or null for any
 * @param jobType the route's job type, or null for any
 * @param eventType the event's type, or null for any
 * @param reason the failure reason code ({@code timeout}, {@code job_failed}, ...), or null for any
 * @param failedBefore only deliveries failed strictly before this instant, or null
 * @param failedAfter only deliveries failed at or after this instant, or null
 * @param deliveryIds only these deliveries (empty: any)
 * @param eventIds only deliveries of these events (empty: any)
 */
public record FailedFilter(
        @Nullable String queue,
        @Nullable String exchange,
        @Nullable String jobType,
        @Nullable String eventType,
        @Nullable String reason,
        @Nullable Instant failedBefore,
        @Nullable Instant failedAfter,
        Set<UUID> deliveryIds,
        Set<UUID> eventIds) {

    private static final Pattern REASON = Pattern.compile("[a-z][a-z0-9_]{0,63}");
    private static final FailedFilter ALL =
            new FailedFilter(null, null, null, null, null, null, null, Set.of(), Set.of());

    public FailedFilter {
        queue = text("queue", queue);
        exchange = text("exchange", exchange);
        jobType = text("job type", jobType);
        eventType = text("event type", eventType);
        if (reason != null && !REASON.matcher(reason).matches()) {
            throw new IllegalArgumentException(
                    "failure reason must be a code like timeout or job_failed ([a-z][a-z0-9_]*), got '"
                            + LogText.of(reason) + "'");
        }
        if (failedBefore != null && failedAfter != null && !failedAfter.isBefore(failedBefore)) {
            throw new IllegalArgumentException(
                    "failed-after (" + failedAfter + ") must be before failed-before (" + failedBefore + ")");
        }
        deliveryIds = Set.copyOf(deliveryIds);
        eventIds = Set.copyOf(eventIds);
    }

    /** Every failed delivery. */
    public static FailedFilter all() {
        return ALL;
    }

    /** The given deliveries (those of them that are failed). */
    public static FailedFilter ids(Set<UUID> deliveryIds) {
        if (deliveryIds.isEmpty()) {
            throw new IllegalArgumentException("at least one delivery id is required");
        }
        return ALL.deliveryIds(deliveryIds);
    }

    /** True when no criterion is given: the filter matches every failed delivery. */
    public boolean isAll() {
        return equals(ALL);
    }

    public FailedFilter queue(@Nullable String queue) {
        return new FailedFilter(
                queue, exchange, jobType, eventType, reason, failedBefore, failedAfter, deliveryIds, eventIds);
    }

    public FailedFilter exchange(@Nullable String exchange) {
        return new FailedFilter(
                queue, exchange, jobType, eventType, reason, failedBefore, failedAfter, deliveryIds, eventIds);
    }

    public FailedFilter jobType(@Nullable String jobType) {
        return new FailedFilter(
                queue, exchange, jobType, eventType, reason, failedBefore, failedAfter, deliveryIds, eventIds);
    }

    public FailedFilter eventType(@Nullable String eventType) {
        return new FailedFilter(
                queue, exchange, jobType, eventType, reason, failedBefore, failedAfter, deliveryIds, eventIds);
    }

    public FailedFilter reason(@Nullable String reason) {
        return new FailedFilter(
                queue, exchange, jobType, eventType, reason, failedBefore, failedAfter, deliveryIds, eventIds);
    }

    public FailedFilter failedBefore(@Nullable Instant failedBefore) {
        return new FailedFilter(
                queue, exchange, jobType, eventType, reason, failedBefore, failedAfter, deliveryIds, eventIds);
    }

    public FailedFilter failedAfter(@Nullable Instant failedAfter) {
        return new FailedFilter(
                queue, exchange, jobType, eventType, reason, failedBefore, failedAfter, deliveryIds, eventIds);
    }

    public FailedFilter deliveryIds(Set<UUID> deliveryIds) {
        return new FailedFilter(
                queue, exchange, jobType, eventType, reason, failedBefore, failedAfter, deliveryIds, eventIds);
    }

    public FailedFilter eventIds(Set<UUID> eventIds) {
        return new FailedFilter(
                queue, exchange, jobType, eventType, reason, failedBefore, failedAfter, deliveryIds, eventIds);
    }

    private static @Nullable String text(String what, @Nullable String value) {
        if (value == null) {
            return null;
        }
        if (value.isEmpty() || value.length() > 255) {
            throw new IllegalArgumentException(what + " must be 1 to 255 characters, got " + value.length());
        }
        return value;
    }
}
