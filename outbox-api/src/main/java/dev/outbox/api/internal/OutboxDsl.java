package dev.outbox.api.internal;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.api.DeliveryStatus;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import org.jooq.DSLContext;
import org.jooq.conf.Settings;
import org.jooq.conf.StatementType;
import org.jooq.impl.DSL;

/** Contexts whose queries reach the configured table names, and the mapping of the generated status enum. */
public final class OutboxDsl {

    private OutboxDsl() {}

    /**
     * A context on the same connection (and so the same transaction) as {@code ctx}, whose generated
     * queries render the names of {@code tables}.
     */
    public static DSLContext mapped(DSLContext ctx, OutboxTables tables) {
        return DSL.using(ctx.configuration().derive(OutboxRenderMapping.apply(ctx.settings(), tables)));
    }

    /**
     * Like {@link #mapped}, for the hot queries of relay and worker: every bind value is inlined
     * ({@code StatementType.STATIC_STATEMENT}), so that PostgreSQL plans each execution for the
     * tables as they are. With prepared statements, pgjdbc switches to a server-side statement after
     * five executions and PostgreSQL may then keep a generic plan made while the tables were empty
     * (a sequential scan and hash join), which grows with the tables until an ANALYZE: measured here
     * as commit→completed p50 2.6 s instead of 0.12 s on fresh tables (docs/BENCHMARKS.md).
     */
    public static DSLContext planned(DSLContext ctx, OutboxTables tables) {
        Settings settings = OutboxRenderMapping.apply(ctx.settings(), tables).withStatementType(StatementType.STATIC_STATEMENT);
        return DSL.using(ctx.configuration().derive(settings));
    }

    public static DeliveryStatus status(OutboxDeliveryStatus status) {
        return switch (status) {
            case pending -> DeliveryStatus.PENDING;
            case dispatched -> DeliveryStatus.DISPATCHED;
            case completed -> DeliveryStatus.COMPLETED;
            case failed -> DeliveryStatus.FAILED;
        };
    }

    public static OutboxDeliveryStatus status(DeliveryStatus status) {
        return switch (status) {
            case PENDING -> OutboxDeliveryStatus.pending;
            case DISPATCHED -> OutboxDeliveryStatus.dispatched;
            case COMPLETED -> OutboxDeliveryStatus.completed;
            case FAILED -> OutboxDeliveryStatus.failed;
        };
    }
}
