package dev.outbox.api;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.api.internal.OutboxDsl;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import dev.outbox.testing.PostgresSchemaExtension;
import java.math.BigDecimal;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RecordIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @EventType("order.placed")
    record OrderPlaced(long orderId, BigDecimal total) {}

    static DSLContext dsl;
    static Outbox outbox;

    @BeforeAll
    static void setUp() {
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        dsl.createTable("orders").column("id", SQLDataType.BIGINT).column("total", SQLDataType.NUMERIC).execute();
        outbox = Outbox.builder().tables(db.tables()).build();
    }

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
        dsl.truncate("orders").execute();
    }

    private long events() {
        return OutboxDsl.mapped(dsl, db.tables()).fetchCount(OUTBOX_EVENTS);
    }

    @Test
    void commitsTheEventWithTheBusinessChange() {
        UUID id = dsl.transactionResult(tx -> {
            tx.dsl().insertInto(DSL.table("orders")).values(1L, BigDecimal.TEN).execute();
            return outbox.record(tx.dsl(), new OrderPlaced(1L, BigDecimal.TEN));
        });
        var row = DSL.using(db.dataSource(), SQLDialect.POSTGRES, OutboxRenderMapping.settings(db.tables()))
                .selectFrom(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(id)).fetchOne();
        assertThat(row).isNotNull();
        assertThat(row.getEventType()).isEqualTo("order.placed");
        assertThat(row.getPayload().data()).isEqualTo("{\"total\": 10, \"orderId\": 1}"); // jsonb orders keys by length
        assertThat(row.getRoutedAt()).isNull();
        assertThat(id.version()).isEqualTo(7);
    }

    @Test
    void rollsTheEventBackWithTheBusinessChange() {
        assertThatThrownBy(() -> dsl.transaction(tx -> {
            tx.dsl().insertInto(DSL.table("orders")).values(2L, BigDecimal.ONE).execute();
            outbox.record(tx.dsl(), new OrderPlaced(2L, BigDecimal.ONE));
            throw new IllegalStateException("business rule broken");
        })).hasMessageContaining("business rule broken");
        assertThat(events()).isZero();
        assertThat(dsl.fetchCount(DSL.table("orders"))).isZero();
    }

    @Test
    void refusesToRecordOutsideATransaction() {
        assertThatThrownBy(() -> outbox.record(dsl, new OrderPlaced(3L, BigDecimal.ONE)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("auto-commit");
        assertThat(events()).isZero();
    }
}
