package dev.outbox.schema;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Names chosen at migration time reach every generated query through the render mapping. */
class CustomNamesIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @Test
    void generatedQueriesUseTheNamesChosenAtMigrationTime() throws SQLException {
        OutboxTables tables =
                new OutboxTables(db.schema() + "_x", "billing_events", "billing_deliveries", "billing_inbox");
        try {
            OutboxMigrations.migrate(db.dataSource(), tables);
            DSLContext ctx = DSL.using(db.dataSource(), SQLDialect.POSTGRES, OutboxRenderMapping.settings(tables));

            UUID eventId = UUID.randomUUID();
            OffsetDateTime now = OffsetDateTime.now();
            ctx.insertInto(OUTBOX_EVENTS)
                    .set(OUTBOX_EVENTS.ID, eventId)
                    .set(OUTBOX_EVENTS.EVENT_TYPE, "invoice.issued")
                    .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{\"n\":1}"))
                    .set(OUTBOX_EVENTS.CREATED_AT, now)
                    .execute();
            ctx.insertInto(OUTBOX_DELIVERIES)
                    .set(OUTBOX_DELIVERIES.ID, UUID.randomUUID())
                    .set(OUTBOX_DELIVERIES.EVENT_ID, eventId)
                    .set(OUTBOX_DELIVERIES.JOB_TYPE, "archive")
                    .set(OUTBOX_DELIVERIES.QUEUE_NAME, "archive")
                    .set(OUTBOX_DELIVERIES.RETRY_DELAYS_SECONDS, new Integer[] {1})
                    .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_SECONDS, 30)
                    .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.pending)
                    .set(OUTBOX_DELIVERIES.AVAILABLE_AT, now)
                    .set(OUTBOX_DELIVERIES.CREATED_AT, now)
                    .set(OUTBOX_DELIVERIES.UPDATED_AT, now)
                    .execute();

            assertThat(ctx.select(OUTBOX_EVENTS.EVENT_TYPE)
                            .from(OUTBOX_EVENTS)
                            .where(OUTBOX_EVENTS.ID.eq(eventId))
                            .fetchOne()
                            .value1())
                    .isEqualTo("invoice.issued");
            assertThat(ctx.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.pending)))
                    .isEqualTo(1);
            assertThat(ctx.render(ctx.selectFrom(OUTBOX_DELIVERIES)))
                    .contains("\"" + tables.schema() + "\".\"billing_deliveries\"");

            assertThat(count("SELECT count(*) FROM " + tables.schema() + ".billing_events"))
                    .isEqualTo(1);
            assertThat(count("SELECT count(*) FROM pg_tables WHERE tablename IN ('outbox_events', 'outbox_deliveries')"
                            + " AND schemaname = '" + tables.schema() + "'"))
                    .isZero();
            assertThat(count("SELECT count(*) FROM pg_tables WHERE tablename IN ('outbox_events', 'outbox_deliveries')"
                            + " AND schemaname = 'public'"))
                    .as("nothing was created under the default names")
                    .isZero();
        } finally {
            try (Connection c = db.dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + tables.schema() + " CASCADE");
            }
        }
    }

    private static long count(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
