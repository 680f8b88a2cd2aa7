package dev.outbox.admin;

import java.time.Duration;

/**
 * What a purge deleted, or with {@code dryRun} would delete.
 *
 * @param completed completed deliveries
 * @param failed failed deliveries
 * @param events routed events with no delivery left
 * @param unrouted unrouted events (0 unless asked for)
 * @param keys rows of the ordering keys' table whose key has nothing left to order (its next event
 *     starts again at position 1)
 * @param batches the statements that deleted something (0 in a dry run)
 * @param took how long the purge took
 */
public record PurgeResult(
        boolean dryRun,
        long completed,
        long failed,
        long events,
        long unrouted,
        long keys,
        int batches,
        Duration took) {

    /** Every delivery and event deleted (the keys are counted apart). */
    public long total() {
        return completed + failed + events + unrouted;
    }
}
