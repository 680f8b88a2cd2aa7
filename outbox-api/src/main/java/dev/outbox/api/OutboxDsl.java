package dev.outbox.api;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The one public way to query the outbox's tables with jOOQ's generated classes
 * ({@code dev.outbox.schema.Tables}) when they carry configured names: a context whose queries render
 * the names of an {@link OutboxTables}.
 *
 * <pre>{@code
 * DSLContext outboxDsl = OutboxDsl.mapped(dsl, tables);
 * int failed = outboxDsl.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.failed));
 * }</pre>
 */
public final class OutboxDsl {

    private OutboxDsl() {}

    /**
     * A context on the same connection (and so the same transaction) as {@code ctx}, whose generated
     * queries render the names of {@code tables}.
     */
    public static DSLContext mapped(DSLContext ctx, OutboxTables tables) {
        return DSL.using(ctx.configuration().derive(OutboxRenderMapping.apply(ctx.settings(), tables)));
    }
}
