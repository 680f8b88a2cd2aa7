package dev.outbox.relay;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.Outbox;
import dev.outbox.delivery.internal.DeliveryTransitions;
import dev.outbox.delivery.internal.WorkerTransitions;
import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Tables migrated under other names: every relay statement and the status reach them. */
class CustomTablesIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @Test
    void routesDispatchesTimesOutAndReportsOnRenamedTables() throws Exception {
        OutboxTables tables = new OutboxTables(db.schema(), "billing_events", "billing_deliveries", "billing_inbox");
        OutboxMigrations.migrate(db.dataSource(), tables);
        Outbox outbox = Outbox.builder().tables(tables).build();
        DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES, OutboxRenderMapping.settings(tables));
        dsl.transaction(tx -> outbox.recordAll(tx.dsl(), List.of(new OrderCancelled(1), new OrderCancelled(2))));
        String queue = rabbit.queue("billing");
        MutableClock clock = MutableClock.startingNow();
        try (OutboxRelay relay = OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(tables)
                .clock(clock)
                .routes(Routes.builder()
                        .route("order.cancelled", Route.job("refund", queue, List.of(), Duration.ofSeconds(60)))
                        .build())
                .build()) {

            PassResult first = relay.runOnce();
            // a worker picks one of the two up (T2s on the renamed table); nobody takes the other
            OutboxDeliveriesRecord taken =
                    dsl.selectFrom(OUTBOX_DELIVERIES).limit(1).fetchSingle();
            assertThat(new WorkerTransitions(new DeliveryTransitions(tables, clock))
                            .start(
                                    dsl,
                                    List.of(new WorkerTransitions.Dispatch(taken.getId(), taken.getDispatchId())),
                                    false))
                    .containsExactly(taken.getId());
            clock.advance(Duration.ofSeconds(60));
            PassResult second = relay.runOnce();

            assertThat(first.dispatched()).isEqualTo(2);
            assertThat(second.timedOut())
                    .as("T4 of the one picked up, T4u of the other")
                    .isEqualTo(2);
        }
        assertThat(dsl.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.failed)))
                .isEqualTo(1);
        assertThat(dsl.fetchCount(OUTBOX_DELIVERIES, OUTBOX_DELIVERIES.UNSTARTED_TIMEOUTS.eq(1)))
                .isEqualTo(1);
        OutboxStatus status = OutboxStatus.read(db.dataSource(), tables, Clock.systemUTC());
        assertThat(status.queues())
                .singleElement()
                .satisfies(q -> assertThat(q.failed()).isEqualTo(1));
        assertThat(status.failuresByReason()).containsEntry("timeout", 1L);
        try (Broker broker = new Broker(rabbit)) {
            assertThat(broker.take(queue, 2)).hasSize(2);
        }
    }
}
