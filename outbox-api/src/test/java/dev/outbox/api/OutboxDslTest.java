package dev.outbox.api;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.flyway.OutboxTables;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.MappedSchema;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

class OutboxDslTest {

    private static final OutboxTables TABLES =
            new OutboxTables("billing", "billing_events", "billing_deliveries", "billing_inbox");

    @Test
    void rendersTheConfiguredSchemaAndTableNames() {
        DSLContext ctx = OutboxDsl.mapped(DSL.using(SQLDialect.POSTGRES), TABLES);
        assertThat(ctx.render(ctx.selectFrom(OUTBOX_EVENTS))).contains("\"billing\".\"billing_events\"");
    }

    @Test
    void leavesTheCallersSettingsAndItsOtherSchemasAlone() {
        Settings settings = new Settings()
                .withRenderMapping(new RenderMapping()
                        .withSchemata(new MappedSchema().withInput("shop").withOutput("shop_test")));
        String before = settings.toString();
        DSLContext app = DSL.using(SQLDialect.POSTGRES, settings);

        DSLContext mapped = OutboxDsl.mapped(app, TABLES);

        assertThat(settings.toString()).isEqualTo(before);
        assertThat(app.settings().getRenderMapping().getSchemata()).hasSize(1);
        assertThat(mapped.settings().getRenderMapping().getSchemata())
                .extracting(MappedSchema::getInput)
                .containsExactly("shop", "public");
        assertThat(app.render(app.selectFrom(OUTBOX_EVENTS))).doesNotContain("billing");
    }

    @Test
    void mapsFromManyThreadsAtOnceWithoutTouchingTheSharedContext() throws Exception {
        DSLContext app = DSL.using(SQLDialect.POSTGRES);
        String before = String.valueOf(app.settings().getRenderMapping());
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> sql = new ArrayList<>();
            for (int i = 0; i < 8_000; i++) {
                sql.add(pool.submit(() -> {
                    DSLContext ctx = OutboxDsl.mapped(app, TABLES);
                    return ctx.render(ctx.selectFrom(OUTBOX_EVENTS));
                }));
            }
            for (Future<String> f : sql) {
                assertThat(f.get()).contains("\"billing\".\"billing_events\"");
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(String.valueOf(app.settings().getRenderMapping())).isEqualTo(before);
    }
}
