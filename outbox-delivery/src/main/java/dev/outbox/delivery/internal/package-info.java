/**
 * The delivery state machine in one place, for the outbox's own engine modules; not an API for
 * applications, and its classes may change in any release (the internal-package check names the
 * modules that may use it). Every transition of docs/state-machine.md is one guarded jOOQ statement
 * here: T1–T4 and the completion of publish routes in {@link RelayTransitions}, T5–T8 in
 * {@link WorkerTransitions}, T9 requeue and T10 purge in {@link OperatorTransitions}, the
 * retry-or-fail both sides share in {@link DeliveryTransitions} (decided by {@link RetryPolicy}).
 * Beside them: the relay-to-worker wire format ({@link DeliveryMessage}), the contexts of the hot
 * statements ({@link PlannedDsl}) and the log records of retries and final failures.
 */
@NullMarked
package dev.outbox.delivery.internal;

import org.jspecify.annotations.NullMarked;
