/**
 * The test kit of applications that use the outbox ({@code dev.outbox:outbox-testkit}, test scope):
 * {@link dev.outbox.test.OutboxTestKit} asserts what {@code Outbox.record} wrote, in the test's open
 * transaction too, routes events and runs the application's own job handlers synchronously against its
 * database with the real state machine (no broker, no background thread), shows the resulting
 * deliveries, and can drive a real relay and worker until the outbox is drained.
 */
@NullMarked
package dev.outbox.test;

import org.jspecify.annotations.NullMarked;
