package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.RouteTable;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** T2 restricted to job types ({@link RelayTransitions#claim(DSLContext, int, java.util.Collection)}), as the test kit (outbox-testkit) claims. */
class ClaimJobTypesIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final OffsetDateTime NOW = OffsetDateTime.of(2030, 1, 2, 3, 4, 5, 0, ZoneOffset.UTC);

    private DSLContext dsl;
    private DSLContext ctx;
    private RelayTransitions relay;

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        ctx = OutboxDsl.mapped(dsl, db.tables());
        relay = new RelayTransitions(
                db.tables(), new RouteTable(Map.of()), Clock.fixed(NOW.toInstant(), ZoneOffset.UTC));
    }

    @Test
    void claimsOnlyReadyJobDeliveriesOfTheGivenJobTypes() {
        OutboxDeliveriesRecord mine = DeliveryRows.delivery(OutboxDeliveryStatus.pending, NOW)
                .jobType("send-confirmation")
                .insert(ctx);
        OutboxDeliveriesRecord other = DeliveryRows.delivery(OutboxDeliveryStatus.pending, NOW)
                .jobType("charge-card")
                .queue("payments")
                .insert(ctx);
        OutboxDeliveriesRecord publish = DeliveryRows.delivery(OutboxDeliveryStatus.pending, NOW)
                .jobType("send-confirmation")
                .publish("orders", "order.placed")
                .insert(ctx);
        OutboxDeliveriesRecord later = DeliveryRows.delivery(OutboxDeliveryStatus.pending, NOW)
                .jobType("send-confirmation")
                .queue("later")
                .availableAt(NOW.plusSeconds(1))
                .insert(ctx);

        List<Claimed> claimed =
                dsl.transactionResult(c -> relay.claim(c.dsl(), 10, List.of("send-confirmation", "archive")));

        assertThat(claimed).singleElement().satisfies(c -> {
            assertThat(c.deliveryId()).isEqualTo(mine.getId());
            assertThat(c.kind()).isEqualTo(RouteKind.JOB);
            assertThat(c.attempt()).isEqualTo(1);
        });
        assertThat(status(mine)).isEqualTo(OutboxDeliveryStatus.dispatched);
        for (OutboxDeliveriesRecord untouched : List.of(other, publish, later)) {
            OutboxDeliveriesRecord now = row(untouched);
            assertThat(now.getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
            assertThat(now.getAttempts()).isZero();
            assertThat(now.getUpdatedAt()).isEqualTo(untouched.getUpdatedAt());
        }
    }

    @Test
    void claimsNothingForNoJobType() {
        DeliveryRows.delivery(OutboxDeliveryStatus.pending, NOW).insert(ctx);

        List<Claimed> claimed = dsl.transactionResult(c -> relay.claim(c.dsl(), 10, List.of()));

        assertThat(claimed).isEmpty();
    }

    private OutboxDeliveryStatus status(OutboxDeliveriesRecord r) {
        return row(r).getStatus();
    }

    private OutboxDeliveriesRecord row(OutboxDeliveriesRecord r) {
        return ctx.selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(r.getId()))
                .fetchSingle();
    }
}
