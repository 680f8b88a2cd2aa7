/**
 * How the relay works, not an API: the pass that ties the state machine's relay transitions
 * ({@code dev.outbox.delivery.internal.RelayTransitions}) to the confirming AMQP publisher and the LISTEN
 * wake-ups, and the status queries. Classes here may change in any release.
 */
@NullMarked
package dev.outbox.relay.internal;

import org.jspecify.annotations.NullMarked;
