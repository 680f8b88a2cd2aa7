/**
 * The outbox's Flyway migrations and the names they create. {@link dev.outbox.flyway.OutboxTables}
 * holds the schema and table names an application chose before its first migration (the same value
 * is handed to the run time), and {@link dev.outbox.flyway.OutboxMigrations} applies the migrations
 * under {@code classpath:db/outbox} with those names, beside the application's own migrations and
 * with a history table of their own.
 */
@NullMarked
package dev.outbox.flyway;

import org.jspecify.annotations.NullMarked;
