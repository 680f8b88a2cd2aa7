/**
 * The one reading of an AMQP URI ({@link dev.outbox.delivery.amqp.AmqpAddress}), the connection
 * factory made from it, and the broker's limits on names, shared by relay and worker.
 */
@NullMarked
package dev.outbox.delivery.amqp;

import org.jspecify.annotations.NullMarked;
