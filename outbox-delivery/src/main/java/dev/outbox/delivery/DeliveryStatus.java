package dev.outbox.delivery;

/** The status of a delivery; see {@code docs/state-machine.md} for the transitions between them. */
public enum DeliveryStatus {
    /** Waiting for its {@code available_at}, then for a relay to dispatch it. */
    PENDING,
    /** Sent (or about to be sent) to the broker; waiting for a worker's result or its timeout. */
    DISPATCHED,
    /** Done. Final. */
    COMPLETED,
    /** Given up, with a safe reason code. Final until an operator requeues it. */
    FAILED
}
