/**
 * The outbox relay: {@link dev.outbox.relay.OutboxRelay} turns recorded events into deliveries (T1),
 * dispatches ready deliveries and publishes them to RabbitMQ with publisher confirms (T2, T3 on a
 * nack, return, confirm timeout or lost connection), and sends overdue dispatches through
 * retry-or-fail (T4). {@link dev.outbox.relay.Route} and {@link dev.outbox.relay.Routes} say where
 * each event type goes, in code or from a routes file ({@link dev.outbox.relay.RoutesFile}).
 * {@link dev.outbox.relay.OutboxStatus} reads the current state for operators. A library (built from a
 * DataSource, AMQP settings and routes); the runnable service is the module outbox-relay-service.
 */
@NullMarked
package dev.outbox.relay;

import org.jspecify.annotations.NullMarked;
