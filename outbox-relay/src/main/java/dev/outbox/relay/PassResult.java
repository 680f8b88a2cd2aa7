package dev.outbox.relay;

import java.util.Set;

/**
 * What one relay pass did.
 *
 * @param routedEvents events that got their deliveries (T1)
 * @param createdDeliveries deliveries created by routing (duplicates stopped by the unique key are not counted)
 * @param unroutedEventTypes event types seen waiting without a route (their events stay unrouted)
 * @param dispatched deliveries claimed for dispatch (T2)
 * @param confirmed dispatches the broker confirmed
 * @param publishFailed dispatches refused, returned, unconfirmed or lost (T3), or never sent because the broker
 *     connection was lost first (released to pending, the attempt not counted)
 * @param completed deliveries of publish routes completed on the broker's confirm
 * @param timedOut dispatched deliveries past their timeout sent through retry-or-fail (T4)
 */
public record PassResult(
        int routedEvents,
        int createdDeliveries,
        Set<String> unroutedEventTypes,
        int dispatched,
        int confirmed,
        int publishFailed,
        int completed,
        int timedOut) {

    public PassResult {
        unroutedEventTypes = Set.copyOf(unroutedEventTypes);
    }

    /** True when the pass changed nothing: a looping relay then sleeps (or waits for a notification). */
    public boolean idle() {
        return routedEvents == 0 && dispatched == 0 && timedOut == 0;
    }
}
