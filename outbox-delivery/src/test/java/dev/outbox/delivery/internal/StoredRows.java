package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.schema.tables.records.OutboxEventsRecord;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * Rows read back for the conformance tests: a delivery as PostgreSQL stores it (its text and the
 * {@code xmin} of its version, so "untouched" means no new row version at all), the records, and
 * what a routing pass must leave for one event.
 */
final class StoredRows {

    /** A row as PostgreSQL stores it: its text and the transaction that wrote this version of it. */
    record Stored(String xmin, String text) {}

    private final DSLContext dsl;
    private final DSLContext mapped;
    private final OutboxTables tables;

    /** {@code dsl} plain, {@code mapped} mapped to {@code tables} ({@code OutboxDsl.mapped}). */
    StoredRows(DSLContext dsl, DSLContext mapped, OutboxTables tables) {
        this.dsl = dsl;
        this.mapped = mapped;
        this.tables = tables;
    }

    Stored stored(UUID deliveryId) {
        String table = tables.schema() + "." + tables.deliveries();
        Record2<String, String> r = dsl.resultQuery(
                        "SELECT d.xmin::text, d::text FROM " + table + " d WHERE d.id = ?", deliveryId)
                .coerce(DSL.field("xmin", String.class), DSL.field("d", String.class))
                .fetchSingle();
        return new Stored(r.value1(), r.value2());
    }

    OutboxDeliveriesRecord delivery(UUID id) {
        return mapped.selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(id))
                .fetchSingle();
    }

    OutboxEventsRecord event(UUID id) {
        return mapped.selectFrom(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(id)).fetchSingle();
    }

    /**
     * What a routing pass (T1, T1o) must leave for one event: routed at {@code now} if it was not
     * ({@code wasRouted} false), and then one pending delivery of the route, exactly the one
     * {@code expected} builds for the id it got; a delivery of the route that existed before stays
     * the only one, untouched (the unique key (event, job type, queue) stops a second one).
     */
    void assertRouted(
            RelayTransitions.Routed result,
            UUID eventId,
            boolean wasRouted,
            OutboxEventsRecord eventBefore,
            @Nullable OutboxDeliveriesRecord existing,
            @Nullable Stored existingStored,
            OffsetDateTime now,
            Function<UUID, OutboxDeliveriesRecord> expected) {
        List<OutboxDeliveriesRecord> after = mapped.selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.EVENT_ID.eq(eventId))
                .fetch();
        OutboxEventsRecord eventAfter = event(eventId);
        if (wasRouted) {
            assertThat(result.events()).isZero();
            assertThat(eventAfter).isEqualTo(eventBefore);
        } else {
            assertThat(result.events()).isOne();
            OutboxEventsRecord expectedEvent = eventBefore.copy();
            expectedEvent.setId(eventId);
            expectedEvent.setRoutedAt(now);
            assertThat(eventAfter).isEqualTo(expectedEvent);
        }
        if (existing != null) {
            assertThat(result.deliveries()).isZero();
            assertThat(after).containsExactly(existing);
            assertThat(stored(existing.getId())).as("the row, untouched").isEqualTo(existingStored);
        } else if (wasRouted) {
            assertThat(after).isEmpty();
        } else {
            assertThat(result.deliveries()).isOne();
            assertThat(after).hasSize(1);
            OutboxDeliveriesRecord created = after.get(0);
            assertThat(created).isEqualTo(expected.apply(created.getId()));
        }
    }
}
