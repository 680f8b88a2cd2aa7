/**
 * Sends the generated outbox tables to the names an application chose at migration time:
 * {@link dev.outbox.schema.mapping.OutboxRenderMapping} turns an {@link dev.outbox.flyway.OutboxTables}
 * into jOOQ render-mapping settings.
 */
@NullMarked
package dev.outbox.schema.mapping;

import org.jspecify.annotations.NullMarked;
