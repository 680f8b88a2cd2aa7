package dev.outbox.delivery;

/** What a delivery does when the relay sends it. */
public enum RouteKind {
    /** A job message to a queue, run by a worker, which reports the result back. */
    JOB,
    /** The event payload itself to an exchange with a routing key; completed on the broker's confirm. */
    PUBLISH
}
