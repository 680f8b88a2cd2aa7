/**
 * The delivery state machine in one place, for the outbox's own engine modules (relay, worker); not
 * an API for applications, and its classes may change in any release. Every transition of
 * docs/state-machine.md is one guarded jOOQ statement here: T1–T4 and the completion of publish
 * routes in {@link dev.outbox.delivery.RelayTransitions}, T5–T8 in
 * {@link dev.outbox.delivery.WorkerTransitions}, T9 requeue and T10 purge in
 * {@link dev.outbox.delivery.OperatorTransitions}, the retry-or-fail both sides share in
 * {@link dev.outbox.delivery.DeliveryTransitions} (decided by {@link dev.outbox.delivery.RetryPolicy}).
 * Beside them: the relay-to-worker wire format ({@link dev.outbox.delivery.DeliveryMessage}), the
 * contexts of the hot statements ({@link dev.outbox.delivery.PlannedDsl}) and the log records of
 * retries and final failures.
 */
@NullMarked
package dev.outbox.delivery;

import org.jspecify.annotations.NullMarked;
