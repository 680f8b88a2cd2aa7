/**
 * Recording integration events inside the caller's transaction, and the routes that turn them into
 * deliveries.
 *
 * <p>{@link dev.outbox.api.Outbox} is the entry point: built once, it records events through the
 * caller's jOOQ {@code DSLContext}, joining its transaction. {@link dev.outbox.api.Route} and
 * {@link dev.outbox.api.Routes} say where each event type goes (in code, or from a routes file a
 * standalone relay reads); {@link dev.outbox.api.EventSerializer} turns events into JSON and back.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder().tables(OutboxTables.defaults()).build();
 *
 * @EventType("order.placed")
 * record OrderPlaced(long orderId, BigDecimal total) {}
 *
 * dsl.transaction(tx -> {
 *     tx.dsl().insertInto(ORDERS).set(ORDERS.ID, 42L).set(ORDERS.TOTAL, total).execute();
 *     UUID eventId = outbox.record(tx.dsl(), new OrderPlaced(42L, total));   // same transaction
 * });
 *
 * // with the domain event's own id, an ordering key and the current trace
 * outbox.record(tx.dsl(), NewEvent.of(orderPlaced).withId(domainEventId).withOrderingKey("order-42")
 *     .withTraceparent(traceparent));
 * // many events in multi-row INSERTs (2,000 rows per statement), one NOTIFY
 * List<UUID> ids = outbox.recordAll(tx.dsl(), events);
 *
 * Routes routes = Routes.builder()
 *     .job("order.placed", "send-confirmation", "emails", RetrySchedule.exponential(5, 3, 3600, 6), 300)
 *     .build();                                         // or Routes.fromFile(Path.of("routes.yaml"))
 * }</pre>
 *
 * <p>{@code record} outside a transaction (a connection in auto-commit mode) throws
 * {@code IllegalStateException} and writes nothing; an event holding a value that cannot be stored
 * throws {@link dev.outbox.api.EventEncodingException} before anything is written. All exceptions are
 * unchecked ({@link dev.outbox.api.OutboxException} and its subclasses, and jOOQ's
 * {@code DataAccessException} for a write the database refuses).
 */
@NullMarked
package dev.outbox.api;

import org.jspecify.annotations.NullMarked;
