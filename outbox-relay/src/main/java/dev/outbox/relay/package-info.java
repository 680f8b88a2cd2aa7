/**
 * The outbox relay: {@link dev.outbox.relay.Relay} turns recorded events into deliveries (T1),
 * dispatches ready deliveries and publishes them to RabbitMQ with publisher confirms (T2, T3 on a
 * nack, return, confirm timeout or lost connection), and sends overdue dispatches through
 * retry-or-fail (T4). {@link dev.outbox.relay.RelayStatus} reads the current state for operators.
 * Usable as a library (built from a DataSource, AMQP settings and routes) or as the runnable
 * service in {@code dev.outbox.relay.cli}.
 */
@NullMarked
package dev.outbox.relay;

import org.jspecify.annotations.NullMarked;
