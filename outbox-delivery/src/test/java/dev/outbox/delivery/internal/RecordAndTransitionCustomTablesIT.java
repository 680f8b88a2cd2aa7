package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.EventType;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxDsl;
import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Custom schema and table names chosen at migration time reach recording and the shared transition:
 * the tables live in a second schema (not the connection's current one) under other names.
 */
class RecordAndTransitionCustomTablesIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    static OutboxTables tables;
    static DSLContext dsl;

    @BeforeAll
    static void migrate() {
        tables = new OutboxTables(db.schema() + "_app", "app_events", "app_deliveries", "app_inbox");
        OutboxMigrations.migrate(db.dataSource(), tables);
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    }

    @AfterAll
    static void dropSecondSchema() throws Exception {
        try (Connection c = db.server().connect();
                Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + tables.schema() + " CASCADE");
        }
    }

    private static long count(String table) {
        return dsl.fetchCount(DSL.table(DSL.name(tables.schema(), table)));
    }

    @Test
    void recordsIntoTheConfiguredTables() {
        Outbox outbox = Outbox.builder().tables(tables).notifications(false).build();

        List<UUID> ids = dsl.transactionResult(
                tx -> outbox.recordAll(tx.dsl(), List.of(new OrderPlaced(1L), new OrderPlaced(2L))));

        assertThat(count("app_events")).isEqualTo(2);
        assertThat(dsl.select(DSL.field("id", UUID.class))
                        .from(DSL.table(DSL.name(tables.schema(), "app_events")))
                        .fetchSet(0, UUID.class))
                .containsExactlyInAnyOrderElementsOf(ids);
        assertThat(dsl.fetchCount(
                        DSL.table(DSL.name("information_schema", "tables")),
                        DSL.field("table_name").in("outbox_events", "outbox_deliveries"),
                        DSL.field("table_schema").in(db.schema(), tables.schema())))
                .isZero();
    }

    @Test
    void retriesADeliveryInTheConfiguredTables() {
        OffsetDateTime now = OffsetDateTime.of(2030, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
        Outbox outbox = Outbox.builder().tables(tables).notifications(false).build();
        UUID eventId = dsl.transactionResult(tx -> outbox.record(tx.dsl(), new OrderPlaced(3L)));
        DSLContext ctx = OutboxDsl.mapped(dsl, tables);
        OutboxDeliveriesRecord row = DeliveryRows.delivery(OutboxDeliveryStatus.dispatched, now)
                .event(eventId)
                .retryDelays(List.of(60, 120))
                .timeoutSeconds(30)
                .attempts(1)
                .availableAt(now.minusMinutes(1))
                .dispatchedAt(now.minusSeconds(40))
                .deliveryTimeoutAt(now.minusSeconds(10))
                .createdAt(now.minusMinutes(1))
                .insert(ctx);
        UUID deliveryId = row.getId();
        UUID dispatchId = row.getDispatchId();

        RetryOutcome o = new DeliveryTransitions(tables, Clock.fixed(now.toInstant(), ZoneOffset.UTC))
                .retryOrFail(dsl, deliveryId, dispatchId, FailureReason.TIMEOUT)
                .orElseThrow();

        assertThat(o.retried()).isTrue();
        assertThat(o.availableAt()).isEqualTo(now.plusSeconds(60));
        assertThat(count("app_deliveries")).isOne();
        assertThat(ctx.fetchValue(DSL.select(OUTBOX_DELIVERIES.STATUS).from(OUTBOX_DELIVERIES)))
                .isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(ctx.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ID.eq(eventId))).isOne();
    }
}
