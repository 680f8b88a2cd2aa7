package dev.outbox.relay.cli;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.admin.ChangeResult;
import dev.outbox.admin.FailedFilter;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.OutboxWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * T9 racing the engine: 4 relays and a worker run while an operator requeues, by filter and by ids
 * of deliveries in every status. Every job fails on its first run (no retries left: failed at once)
 * and succeeds on the next. A requeue that hit a delivery in any status but failed would run a job
 * again after it succeeded or while it runs; so each delivery must succeed exactly once, and the
 * requeues must add up to exactly one per delivery.
 */
class RequeueRaceIT {

    static final int EVENTS = 2_000;

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @Test
    void aDeliveryIsNeverBothRequeuedAndCompleted() throws Exception {
        Tables tables = new Tables(db);
        String queue = rabbit.queue("refunds");
        Routes routes = Routes.builder()
                .route("order.cancelled", Route.job("refund", queue, List.of(), Duration.ofSeconds(600)))
                .build();
        Map<UUID, AtomicInteger> runs = new ConcurrentHashMap<>();
        Map<UUID, AtomicInteger> successes = new ConcurrentHashMap<>();
        OutboxAdmin admin = OutboxAdmin.of(db.dataSource(), db.tables()).withBatchSize(100);
        List<OutboxRelay> relays = new ArrayList<>();
        AtomicBoolean operating = new AtomicBoolean(true);
        AtomicLong requeued = new AtomicLong();
        AtomicLong skippedNotFailed = new AtomicLong();
        try (OutboxWorker worker = OutboxWorker.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .queue(queue, 4, 200)
                .handler("refund", OrderCancelled.class, (event, context) -> {
                    if (runs.computeIfAbsent(context.deliveryId(), id -> new AtomicInteger())
                                    .incrementAndGet()
                            == 1) {
                        throw new IllegalStateException("first run fails");
                    }
                    successes
                            .computeIfAbsent(context.deliveryId(), id -> new AtomicInteger())
                            .incrementAndGet();
                })
                .build()) {
            worker.start();
            for (int i = 0; i < 4; i++) {
                relays.add(OutboxRelay.builder()
                        .dataSource(db.dataSource())
                        .connectionFactory(rabbit.connectionFactory())
                        .tables(db.tables())
                        .routes(routes)
                        .routeBatchSize(100)
                        .dispatchBatchSize(100)
                        .build());
            }
            relays.forEach(OutboxRelay::start);
            Thread operator = new Thread(
                    () -> {
                        List<UUID> all = new ArrayList<>();
                        while (operating.get()) {
                            ChangeResult byFilter =
                                    admin.requeue(FailedFilter.all().queue(queue), false);
                            requeued.addAndGet(byFilter.deliveries());
                            if (all.size() < EVENTS) {
                                all = tables.dsl()
                                        .select(OUTBOX_DELIVERIES.ID)
                                        .from(OUTBOX_DELIVERIES)
                                        .fetch(OUTBOX_DELIVERIES.ID);
                            }
                            if (!all.isEmpty()) {
                                // ids of deliveries in any status: only the failed ones among them may change
                                List<UUID> sample = new ArrayList<>(all);
                                Collections.shuffle(sample);
                                ChangeResult byIds = admin.requeue(
                                        FailedFilter.ids(
                                                new HashSet<>(sample.subList(0, Math.min(300, sample.size())))),
                                        false);
                                requeued.addAndGet(byIds.deliveries());
                                skippedNotFailed.addAndGet(byIds.skipped().stream()
                                        .filter(s -> !s.state().equals("failed"))
                                        .count());
                            }
                        }
                    },
                    "operator");
            operator.start();
            for (int from = 0; from < EVENTS; from += 200) {
                tables.recordAll(IntStream.range(from, from + 200)
                        .mapToObj(OrderCancelled::new)
                        .toList());
            }

            Awaitility.await()
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> tables.dsl()
                                    .fetchCount(
                                            OUTBOX_DELIVERIES,
                                            OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.completed))
                            == EVENTS);
            operating.set(false);
            operator.join(30_000);
            relays.forEach(OutboxRelay::close);

            assertThat(relays).allSatisfy(r -> assertThat(r.failure()).isEmpty());
            assertThat(successes).hasSize(EVENTS);
            assertThat(successes.values())
                    .allSatisfy(n -> assertThat(n.get())
                            .as("successful runs of one delivery")
                            .isEqualTo(1));
            assertThat(runs.values())
                    .allSatisfy(
                            n -> assertThat(n.get()).as("runs of one delivery").isEqualTo(2));
            assertThat(requeued.get())
                    .as("one requeue per delivery, each of a failed one")
                    .isEqualTo(EVENTS);
            assertThat(skippedNotFailed.get())
                    .as("the race did happen: requeues met deliveries in other statuses")
                    .isPositive();
            Set<Integer> attempts = new HashSet<>(tables.dsl()
                    .select(OUTBOX_DELIVERIES.ATTEMPTS)
                    .from(OUTBOX_DELIVERIES)
                    .fetch(OUTBOX_DELIVERIES.ATTEMPTS));
            assertThat(attempts)
                    .as("requeued with attempts 0, then dispatched once")
                    .containsExactly(1);
        } finally {
            operating.set(false);
            relays.forEach(OutboxRelay::close);
        }
    }
}
