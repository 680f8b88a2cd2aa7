/**
 * Recording integration events inside the caller's transaction.
 *
 * <p>{@link dev.outbox.api.Outbox} is the entry point: built once, it records events through the
 * caller's jOOQ {@code DSLContext}, joining its transaction; {@link dev.outbox.api.EventSerializer}
 * turns events into JSON and back; {@link dev.outbox.api.OutboxDsl} queries the outbox's tables under
 * their configured names. Where each event type goes is the relay's business (its routes).
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
 * }</pre>
 *
 * <p>{@code record} outside a transaction (a connection in auto-commit mode) throws
 * {@code IllegalStateException} and writes nothing; an event holding a value that cannot be stored
 * throws {@link dev.outbox.api.EventEncodingException} before anything is written; an id of one's own
 * that is already recorded throws {@link dev.outbox.api.DuplicateEventException} without aborting the
 * transaction, and {@code recordIfAbsent} records unless the id exists. All exceptions are
 * unchecked: failures are {@link dev.outbox.api.OutboxException} and its subclasses, and jOOQ's
 * {@code DataAccessException} for a write the database refuses, which leaves a PostgreSQL
 * transaction aborted; calls made wrongly get the JDK's {@code IllegalArgumentException},
 * {@code NullPointerException} or {@code IllegalStateException}.
 */
@NullMarked
package dev.outbox.api;

import org.jspecify.annotations.NullMarked;
