/**
 * The fault-injection suite: private PostgreSQL and RabbitMQ servers, relays and workers as processes
 * of their own under a small supervisor, kills and outages on a schedule, and counts read from the
 * database at the end ({@link dev.outbox.faults.FaultSuite}).
 */
@NullMarked
package dev.outbox.faults;

import org.jspecify.annotations.NullMarked;
