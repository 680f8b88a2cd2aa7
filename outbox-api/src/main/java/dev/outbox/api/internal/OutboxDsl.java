package dev.outbox.api.internal;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.api.DeliveryStatus;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import org.jooq.DSLContext;
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
