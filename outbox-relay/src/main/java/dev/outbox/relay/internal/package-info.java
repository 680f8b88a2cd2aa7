/**
 * How the relay works, not an API: the relay's transitions as guarded jOOQ statements
 * ({@link dev.outbox.relay.internal.RelayTransitions}), the confirming AMQP publisher, the LISTEN
 * wake-ups, the pass that ties them together and the status queries. Classes here may change in any
 * release.
 */
@NullMarked
package dev.outbox.relay.internal;

import org.jspecify.annotations.NullMarked;
