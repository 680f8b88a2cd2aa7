/**
 * The operator's library over the outbox tables: {@link dev.outbox.admin.OutboxAdmin} lists, shows,
 * requeues (T9) and removes failed deliveries and runs retention (T10), every change one guarded
 * statement per batch, each batch its own short transaction, each operation with a dry run that
 * counts exactly what it would change. No SQL of an operator's own against the tables is needed.
 */
@NullMarked
package dev.outbox.admin;

import org.jspecify.annotations.NullMarked;
