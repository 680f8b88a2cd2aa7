package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.RouteTable;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.Connection;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RelayTransitions#workWaiting}: true exactly when a pass would find work (an unrouted event of
 * a routed type, an available pending delivery), read in auto-commit mode without leaving its
 * settings on the connection.
 */
class WorkWaitingIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final OffsetDateTime NOW = OffsetDateTime.of(2030, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC);
    static final DeliveryTemplate ROUTE =
            new DeliveryTemplate(RouteKind.JOB, "send-confirmation", "emails", null, null, List.of(60), 29);

    private DSLContext ctx;
    private RelayTransitions relay;

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
        ctx = OutboxDsl.mapped(DSL.using(db.dataSource(), SQLDialect.POSTGRES), db.tables());
        relay = new RelayTransitions(
                db.tables(),
                new RouteTable(Map.of("order.placed", List.of(ROUTE), "order.archived", List.of())),
                Clock.fixed(NOW.toInstant(), ZoneOffset.UTC));
    }

    private boolean workWaiting() throws Exception {
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(c.getAutoCommit()).isTrue();
            boolean waiting = relay.workWaiting(DSL.using(c, SQLDialect.POSTGRES));
            DSLContext after = DSL.using(c, SQLDialect.POSTGRES);
            assertThat(after.fetchOne("show enable_bitmapscan").get(0, String.class) + " "
                            + after.fetchOne("show enable_seqscan").get(0, String.class))
                    .as("the settings ended with the statement")
                    .isEqualTo("on on");
            return waiting;
        }
    }

    @Test
    void nothingWaitsInEmptyTables() throws Exception {
        assertThat(workWaiting()).isFalse();
    }

    @Test
    void anUnroutedEventOfARoutedTypeWaits() throws Exception {
        DeliveryRows.event(ctx, NOW, null);

        assertThat(workWaiting()).isTrue();
    }

    @Test
    void routedEventsAndUnroutedEventsWithoutRoutesDoNotWait() throws Exception {
        DeliveryRows.event(ctx, NOW, NOW);
        unroutedOfType("order.shipped"); // no route at all
        unroutedOfType("order.archived"); // an empty list of routes

        assertThat(workWaiting()).isFalse();
    }

    @Test
    void anAvailablePendingDeliveryWaits() throws Exception {
        DeliveryRows.delivery(OutboxDeliveryStatus.pending, NOW)
                .availableAt(NOW)
                .insert(ctx);

        assertThat(workWaiting()).isTrue();
    }

    @Test
    void deliveriesThatAreNotAvailablePendingDoNotWait() throws Exception {
        DeliveryRows.delivery(OutboxDeliveryStatus.pending, NOW)
                .availableAt(NOW.plusSeconds(1))
                .insert(ctx);
        DeliveryRows.delivery(OutboxDeliveryStatus.dispatched, NOW).queue("q2").insert(ctx);
        DeliveryRows.delivery(OutboxDeliveryStatus.completed, NOW).queue("q3").insert(ctx);
        DeliveryRows.delivery(OutboxDeliveryStatus.failed, NOW).queue("q4").insert(ctx);

        assertThat(workWaiting()).isFalse();
    }

    private void unroutedOfType(String type) {
        UUID id = DeliveryRows.event(ctx, NOW, null);
        ctx.update(OUTBOX_EVENTS)
                .set(OUTBOX_EVENTS.EVENT_TYPE, type)
                .where(OUTBOX_EVENTS.ID.eq(id))
                .execute();
    }
}
