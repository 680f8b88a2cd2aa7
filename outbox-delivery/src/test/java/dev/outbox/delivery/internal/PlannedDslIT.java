package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.OutboxDsl;
import dev.outbox.testing.PostgresSchemaExtension;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The planned context against the planner trap: its statements are never prepared on the server, so
 * PostgreSQL plans each execution with its values instead of keeping a generic plan of empty tables.
 */
class PlannedDslIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @Test
    void neverPreparesAPlannedStatementOnTheServer() {
        assertThat(serverSideStatementsAfterTwentyRuns(ctx -> PlannedDsl.planned(ctx, db.tables())))
                .isZero();
    }

    @Test
    void preparesThePlainContextsStatementsAsUsual() {
        // the counter-check of the test above: without the planned context pgjdbc does prepare them
        assertThat(serverSideStatementsAfterTwentyRuns(ctx -> OutboxDsl.mapped(ctx, db.tables())))
                .isEqualTo(1);
    }

    @Test
    void bindsArraysOfEveryKindWithTheirValuesIntact() {
        DSLContext ctx = PlannedDsl.planned(DSL.using(db.dataSource(), SQLDialect.POSTGRES), db.tables());
        String[] texts = {"plain", "with \"quotes\"", "comma, brace } and \\ backslash", null, "", "NULL"};
        UUID[] ids = {UUID.randomUUID(), UUID.randomUUID()};
        Integer[] numbers = {1, null, -3};
        Boolean[] flags = {true, false};
        var row = ctx.select(
                        DSL.val(texts),
                        DSL.val(ids),
                        DSL.val(numbers),
                        DSL.val(flags),
                        DSL.field(DSL.val(UUID.randomUUID()).eq(DSL.any(ids))))
                .fetchOne();
        assertThat(row.value1()).containsExactly(texts);
        assertThat(row.value2()).containsExactly(ids);
        assertThat(row.value3()).containsExactly(numbers);
        assertThat(row.value4()).containsExactly(flags);
        assertThat(row.value5()).isFalse();
        assertThat(ctx.selectCount()
                        .from(OUTBOX_EVENTS)
                        .where(OUTBOX_EVENTS.ID.eq(DSL.any(ids)))
                        .fetchOne(0, Integer.class))
                .isZero();
    }

    /** Runs one query twenty times on one connection, then counts the server-side statements of that session. */
    private static long serverSideStatementsAfterTwentyRuns(UnaryOperator<DSLContext> context) {
        DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        Long prepared = dsl.connectionResult(connection -> {
            DSLContext ctx = context.apply(DSL.using(connection, SQLDialect.POSTGRES));
            for (int i = 0; i < 20; i++) { // pgjdbc's default prepares on the server from the fifth execution
                ctx.selectCount()
                        .from(OUTBOX_EVENTS)
                        .where(OUTBOX_EVENTS.ID.eq(UUID.randomUUID()))
                        .and(OUTBOX_EVENTS.ROUTED_AT.isNull())
                        .fetchOne(0, Long.class);
            }
            // the same session: pgjdbc's server-side statements are listed here once prepared
            return DSL.using(connection, SQLDialect.POSTGRES)
                    .fetchOne("select count(*) from pg_prepared_statements where statement like '%outbox_events%'")
                    .get(0, Long.class);
        });
        return prepared;
    }

    @Test
    void aTransactionOfAPlannedContextStaysPlannedAndTheCallersContextStaysPlain() {
        DSLContext app = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        DSLContext planned = PlannedDsl.planned(app, db.tables());
        planned.transaction(tx -> {
            DSLContext inside = tx.dsl();
            assertThat(PlannedDsl.planned(inside, db.tables())).isSameAs(inside);
        });
        assertThat(PlannedDsl.planned(app, db.tables())).isNotSameAs(app);
        assertThat(app.configuration().executeListenerProviders()).isEmpty();
    }
}
