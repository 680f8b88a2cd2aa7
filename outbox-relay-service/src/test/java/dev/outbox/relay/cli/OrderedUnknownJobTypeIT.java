package dev.outbox.relay.cli;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.api.EventType;
import dev.outbox.api.NewEvent;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxDsl;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.OutboxWorker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A deploy rolled back: the workers on an ordered route's queue no longer know its job type. The
 * head of each key fails {@code unknown_job_type} once and parks its key with that reason (no
 * retry loop, the rest of the key waits); once the handler is back, {@code blocked requeue}
 * resumes the key in order. Real relay, real worker, real RabbitMQ.
 */
class OrderedUnknownJobTypeIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    static final String QUEUE = rabbit.queue("parcels");
    static final ObjectMapper JSON = new ObjectMapper();

    @EventType("parcel.moved")
    record ParcelMoved(String parcel, int step) {}

    static final Routes ROUTES = Routes.builder()
            .route(
                    "parcel.moved",
                    Route.job("track-parcel", QUEUE, RetrySchedule.seconds(1, 1, 1), Duration.ofSeconds(60))
                            .ordered())
            .build();

    final DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);

    private List<UUID> record(NewEvent... events) {
        Outbox outbox =
                Outbox.builder().tables(db.tables()).notifications(false).build();
        return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), List.of(events)));
    }

    private static NewEvent moved(String parcel, int step) {
        return NewEvent.of(new ParcelMoved(parcel, step)).withOrderingKey(parcel);
    }

    private static void relayOnce() {
        try (OutboxRelay relay = OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .routes(ROUTES)
                .notifications(false)
                .build()) {
            relay.runOnce();
        }
    }

    private OutboxDeliveriesRecord delivery(UUID eventId) {
        return OutboxDsl.mapped(dsl, db.tables())
                .selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.EVENT_ID.eq(eventId))
                .fetchSingle();
    }

    private static OutboxWorker.Builder worker() {
        return OutboxWorker.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .queue(QUEUE, 1, 10);
    }

    private static String blocked(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "blocked";
        System.arraycopy(args, 0, command, 1, args.length);
        return Cli.succeed(db, Map.of(), command);
    }

    @Test
    void aHeadNoHandlerKnowsParksItsKeyWithThatReasonAndTheKeyResumesInOrderAfterTheFix() throws Exception {
        List<UUID> a = record(moved("A", 1), moved("A", 2));
        List<UUID> b = record(moved("B", 1));

        // the rolled-back worker reads the queue but has no handler for track-parcel
        try (OutboxWorker rolledBack = worker().handler("weigh-parcel", ParcelMoved.class, (event, context) -> {})
                .build()) {
            rolledBack.start();
            relayOnce();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> "failed".equals(delivery(a.get(0)).getStatus().getLiteral())
                            && "failed".equals(delivery(b.get(0)).getStatus().getLiteral()));
            for (int pass = 0; pass < 3; pass++) {
                Thread.sleep(1_100); // longer than each retry delay: a retry would be due by now
                relayOnce();
            }
        }
        OutboxDeliveriesRecord headA = delivery(a.get(0));
        assertThat(headA.getFailureReason()).isEqualTo("unknown_job_type");
        assertThat(headA.getAttempts())
                .as("failed for good on its first attempt, never retried")
                .isEqualTo(1);
        assertThat(delivery(a.get(1)).getStatus().getLiteral())
                .as("the rest of key A waits behind its head")
                .isEqualTo("pending");
        assertThat(delivery(a.get(1)).getAttempts()).isZero();

        List<JsonNode> parked = blocked("list", "--json")
                .lines()
                .map(line -> {
                    try {
                        return JSON.readTree(line);
                    } catch (Exception e) {
                        throw new AssertionError(line, e);
                    }
                })
                .toList();
        assertThat(parked).extracting(n -> n.get("orderingKey").asText()).containsExactlyInAnyOrder("A", "B");
        assertThat(parked)
                .allSatisfy(n -> assertThat(n.get("failureReason").asText()).isEqualTo("unknown_job_type"));

        // the fix is deployed; the operator requeues key A's head: A runs in order, B stays parked
        List<String> ran = new CopyOnWriteArrayList<>();
        try (OutboxWorker fixed = worker().handler(
                        "track-parcel", ParcelMoved.class, (event, context) -> ran.add(event.parcel() + event.step()))
                .build()) {
            fixed.start();
            assertThat(blocked("requeue", "--id", headA.getId().toString())).contains("requeued 1 blocked head(s)");
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        relayOnce();
                        return "completed".equals(delivery(a.get(1)).getStatus().getLiteral());
                    });
        }
        assertThat(ran).containsExactly("A1", "A2");
        assertThat(delivery(b.get(0)).getStatus().getLiteral()).isEqualTo("failed");
        assertThat(blocked("list")).contains("1 blocked key(s)");
    }
}
