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
 *     UUID eventId = outbox.record(tx.dsl(), new OrderPlaced(42L, total));
 * });
 * }</pre>
 *
 * All exceptions are unchecked ({@link dev.outbox.api.OutboxException} and its subclasses).
 */
@NullMarked
package dev.outbox.api;

import org.jspecify.annotations.NullMarked;
