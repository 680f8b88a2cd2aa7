package dev.outbox.admin;

import java.util.List;
import java.util.UUID;

/**
 * What a requeue or a removal changed, or with {@code dryRun} would change.
 *
 * @param dryRun true when nothing was changed and the counts say what the run would do
 * @param deliveries deliveries requeued or removed (would be)
 * @param events events removed because no delivery was left to them (always 0 for a requeue)
 * @param skipped deliveries asked for by id, or matched by the filter, that were left alone because
 *     they are not (or no longer) failed, each with its state then
 */
public record ChangeResult(boolean dryRun, int deliveries, int events, List<Skipped> skipped) {

    public ChangeResult {
        skipped = List.copyOf(skipped);
    }

    /**
     * A delivery left alone.
     *
     * @param state its status ({@code pending}, {@code dispatched}, {@code completed}) or {@code absent} when there is no such delivery
     */
    public record Skipped(UUID id, String state) {}
}
