package dev.outbox.delivery.internal;

import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.OutboxDeliveries;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * The one rule of ordered routes (docs/ordering.md), written once for T2o's claim, the test kit's
 * claim and the operators' blocked keys: a delivery of an ordered route <em>holds its key</em>, so that
 * no later delivery of its (route, key) starts, while it is live (not completed) and pending,
 * dispatched, or failed and blocking (policy {@code block}, not skipped by an operator).
 */
final class KeyRule {

    private static final Field<OutboxDeliveryStatus> COMPLETED = DSL.inline(OutboxDeliveryStatus.completed);
    private static final Field<OutboxDeliveryStatus> FAILED = DSL.inline(OutboxDeliveryStatus.failed);
    private static final Field<String> BLOCK = DSL.inline(DeliveryTemplate.BLOCK);

    private KeyRule() {}

    /** Of an ordered route and not completed: the predicate of {@code ordered_idx}, repeated so that the index serves it. */
    static Condition live(OutboxDeliveries d) {
        return d.ORDERING_KEY.isNotNull().and(d.STATUS.ne(COMPLETED));
    }

    /** Of an ordered route whose policy is {@code block}, and not skipped: a failure of it blocks its key. */
    static Condition blocking(OutboxDeliveries d) {
        return d.ORDERING_KEY.isNotNull().and(d.ORDERING_POLICY.eq(BLOCK)).and(d.SKIPPED_AT.isNull());
    }

    /** Holds its key: live, and not failed unless {@link #blocking}. */
    static Condition holdsItsKey(OutboxDeliveries d) {
        return live(d).and(d.STATUS.ne(FAILED).or(blocking(d)));
    }
}
