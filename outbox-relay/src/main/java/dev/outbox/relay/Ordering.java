package dev.outbox.relay;

/**
 * Whether a route delivers the events of one ordering key in order, and what happens to the key
 * when its head fails for good (docs/ordering.md).
 *
 * <p>On an ordered route, the deliveries of one (route, ordering key) are dispatched one at a time,
 * in the order of their recording transactions (then of recording within one transaction); the
 * next waits until the one before it is completed, including while it waits for a retry. Events
 * without an ordering key on an ordered route go unordered, and are counted.
 */
public enum Ordering {

    /** No order: every delivery is dispatched as soon as it is available (the default). */
    UNORDERED,

    /** In order; a head that fails for good blocks its key on the route until an operator requeues or skips it. */
    BLOCK,

    /** In order; a head that fails for good stays failed, and the key goes on with its next event. */
    SKIP;

    /** Whether the route delivers in order. */
    public boolean ordered() {
        return this != UNORDERED;
    }
}
