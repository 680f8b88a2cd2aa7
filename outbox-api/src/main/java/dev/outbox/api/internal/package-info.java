/**
 * Shared by the outbox's own modules (relay, worker), not an API: its classes may change in any
 * release. Holds what both sides of the delivery state machine must agree on, written once: the
 * retry-or-fail decision ({@link dev.outbox.api.internal.RetryPolicy}, and as one guarded statement in
 * {@link dev.outbox.api.internal.DeliveryTransitions}), the mapping of the generated tables to the
 * configured names, the log records of retries and final failures, and the one reading of an AMQP URI
 * ({@link dev.outbox.api.internal.AmqpAddress}) with the connection factory made from it.
 */
@NullMarked
package dev.outbox.api.internal;

import org.jspecify.annotations.NullMarked;
