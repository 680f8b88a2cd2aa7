package dev.outbox.api;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.schema.tables.records.OutboxEventsRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.conf.StatementType;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RecordIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final Instant NOW = Instant.parse("2030-01-02T03:04:05.123456Z");

    @EventType("order.placed")
    record OrderPlaced(long orderId, BigDecimal total) {}

    @EventType("order.shipped")
    record OrderShipped(long orderId) {}

    record Unnamed(long orderId) {}

    record Note(String text) {}

    static DSLContext dsl;
    static Outbox outbox;

    @BeforeAll
    static void setUp() {
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        dsl.createTable("orders")
                .column("id", SQLDataType.BIGINT)
                .column("total", SQLDataType.NUMERIC)
                .execute();
        outbox = Outbox.builder()
                .tables(db.tables())
                .clock(Clock.fixed(NOW, ZoneOffset.UTC))
                .notifications(false)
                .build();
    }

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
        dsl.truncate("orders").execute();
    }

    private static DSLContext events(DSLContext ctx) {
        return OutboxDsl.mapped(ctx, db.tables());
    }

    private static long eventCount() {
        return events(dsl).fetchCount(OUTBOX_EVENTS);
    }

    private static OutboxEventsRecord event(UUID id) {
        return events(dsl)
                .selectFrom(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.eq(id))
                .fetchSingle();
    }

    private static void insertOrder(DSLContext tx, long id) {
        tx.insertInto(DSL.table("orders")).values(id, BigDecimal.TEN).execute();
    }

    @Test
    void commitsTheEventWithTheBusinessChange() throws Exception {
        UUID id = dsl.transactionResult(tx -> {
            insertOrder(tx.dsl(), 1L);
            return outbox.record(tx.dsl(), new OrderPlaced(1L, new BigDecimal("10.50")));
        });

        OutboxEventsRecord row = event(id);
        assertThat(row.getEventType()).isEqualTo("order.placed");
        assertThat(new ObjectMapper().readTree(row.getPayload().data()))
                .isEqualTo(new ObjectMapper().readTree("{\"orderId\":1,\"total\":10.50}"));
        assertThat(row.getPayload().data()).contains("10.50");
        assertThat(row.getCreatedAt().toInstant()).isEqualTo(NOW);
        assertThat(row.getRoutedAt()).isNull();
        assertThat(row.getOrderingKey()).isNull();
        assertThat(row.getTraceparent()).isNull();
        assertThat(id.version()).isEqualTo(7);
        assertThat(dsl.fetchCount(DSL.table("orders"))).isOne();
    }

    @Test
    void recordsThroughAContextThatInlinesItsValues() {
        DSLContext inlining = DSL.using(
                db.dataSource(), SQLDialect.POSTGRES, new Settings().withStatementType(StatementType.STATIC_STATEMENT));
        Outbox fresh = Outbox.builder()
                .tables(db.tables())
                .notifications(false)
                .build(); // renders its statement on this first call

        UUID id = inlining.transactionResult(tx -> fresh.record(tx.dsl(), new OrderPlaced(1L, BigDecimal.ONE)));

        assertThat(event(id).getEventType()).isEqualTo("order.placed");
    }

    @Test
    void rollsTheEventBackWithTheBusinessChange() {
        assertThatThrownBy(() -> dsl.transaction(tx -> {
                    insertOrder(tx.dsl(), 2L);
                    outbox.record(tx.dsl(), new OrderPlaced(2L, BigDecimal.ONE));
                    throw new IllegalStateException("business rule broken");
                }))
                .hasMessageContaining("business rule broken");
        assertThat(eventCount()).isZero();
        assertThat(dsl.fetchCount(DSL.table("orders"))).isZero();
    }

    @Test
    void refusesToRecordOutsideATransaction() {
        assertThatThrownBy(() -> outbox.record(dsl, new OrderPlaced(3L, BigDecimal.ONE)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("auto-commit");
        assertThatThrownBy(() -> outbox.recordAll(dsl, List.of(new OrderPlaced(3L, BigDecimal.ONE))))
                .isInstanceOf(IllegalStateException.class);
        assertThat(eventCount()).isZero();
    }

    @Test
    void recordsABatchOf1000EventsInOneInsertStatement() {
        List<OrderPlaced> batch = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            batch.add(new OrderPlaced(i, BigDecimal.valueOf(i)));
        }
        AtomicInteger inserts = new AtomicInteger();
        DSLContext counting = DSL.using(dsl.configuration().derive(new ExecuteListener() {
            @Override
            public void executeStart(ExecuteContext ctx) {
                if (ctx.sql() != null && ctx.sql().startsWith("insert")) {
                    inserts.incrementAndGet();
                }
            }
        }));

        List<UUID> ids = counting.transactionResult(tx -> outbox.recordAll(tx.dsl(), batch));

        assertThat(inserts).hasValue(1);
        assertThat(ids).hasSize(1_000).doesNotHaveDuplicates();
        assertThat(ids).allSatisfy(id -> assertThat(id.version()).isEqualTo(7));
        for (int i = 1; i < ids.size(); i++) {
            assertThat(ids.get(i).toString()).isGreaterThan(ids.get(i - 1).toString());
        }
        Map<UUID, OutboxEventsRecord> rows =
                events(dsl).selectFrom(OUTBOX_EVENTS).fetchMap(OUTBOX_EVENTS.ID);
        assertThat(rows).hasSize(1_000);
        for (int i = 0; i < ids.size(); i++) {
            assertThat(rows.get(ids.get(i)).getPayload().data()).contains("\"orderId\": " + i + "}");
        }
    }

    @Test
    void splitsAVeryLargeBatchIntoSeveralStatementsInOneTransaction() {
        List<OrderShipped> batch = new ArrayList<>();
        for (int i = 0; i < 2 * Outbox.ROWS_PER_STATEMENT + 1; i++) {
            batch.add(new OrderShipped(i));
        }

        List<UUID> ids = dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), batch));

        assertThat(ids).hasSize(batch.size()).doesNotHaveDuplicates();
        assertThat(eventCount()).isEqualTo(batch.size());
    }

    @Test
    void recordsNothingForAnEmptyBatch() {
        List<UUID> none = dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), List.of()));
        assertThat(none).isEmpty();
        assertThat(eventCount()).isZero();
    }

    @Test
    void losesNothingWhen8ThreadsRecordConcurrently() throws Exception {
        int threads = 8;
        int perThread = 100;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<List<UUID>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    List<UUID> mine = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        long orderId = thread * 1_000L + i;
                        mine.add(dsl.transactionResult(tx -> {
                            insertOrder(tx.dsl(), orderId);
                            return outbox.record(tx.dsl(), new OrderPlaced(orderId, BigDecimal.ONE));
                        }));
                    }
                    return mine;
                }));
            }
            start.countDown();
            Set<UUID> all = new HashSet<>();
            for (Future<List<UUID>> f : futures) {
                all.addAll(f.get());
            }
            assertThat(all).hasSize(threads * perThread);
            assertThat(events(dsl).select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).fetchSet(OUTBOX_EVENTS.ID))
                    .isEqualTo(all);
            assertThat(dsl.fetchCount(DSL.table("orders"))).isEqualTo(threads * perThread);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void refusesTheSameOwnIdTwiceAndRollsTheSecondBusinessChangeBack() {
        UUID domainEventId = IdGenerator.uuidV7().next();
        UUID first = dsl.transactionResult(tx -> {
            insertOrder(tx.dsl(), 10L);
            return outbox.record(
                    tx.dsl(), NewEvent.of(new OrderPlaced(10L, BigDecimal.ONE)).withId(domainEventId));
        });
        assertThat(first).isEqualTo(domainEventId);

        assertThatThrownBy(() -> dsl.transaction(tx -> {
                    insertOrder(tx.dsl(), 11L);
                    outbox.record(
                            tx.dsl(),
                            NewEvent.of(new OrderPlaced(10L, BigDecimal.ONE)).withId(domainEventId));
                }))
                .isInstanceOfSatisfying(
                        DuplicateEventException.class, e -> assertThat(e.ids()).containsExactly(domainEventId))
                .hasMessageContaining(domainEventId.toString());

        assertThat(eventCount()).isOne();
        assertThat(dsl.select(DSL.field("id")).from("orders").fetchSet(0, Long.class))
                .containsExactly(10L);
    }

    private static UUID recordedOwnId() {
        UUID id = IdGenerator.uuidV7().next();
        dsl.transaction(tx -> outbox.record(
                tx.dsl(), NewEvent.of(new OrderPlaced(1L, BigDecimal.ONE)).withId(id)));
        return id;
    }

    private static Set<Long> orderIds() {
        return dsl.select(DSL.field("id")).from("orders").fetchSet(0, Long.class);
    }

    @Test
    void aDuplicateFromRecordLeavesTheTransactionUsable() {
        UUID id = recordedOwnId();

        dsl.transaction(tx -> {
            insertOrder(tx.dsl(), 20L);
            assertThatThrownBy(() -> outbox.record(
                            tx.dsl(),
                            NewEvent.of(new OrderPlaced(20L, BigDecimal.ONE)).withId(id)))
                    .isInstanceOf(DuplicateEventException.class);
            insertOrder(tx.dsl(), 21L); // would fail with 25P02 in an aborted transaction
        });

        assertThat(orderIds()).containsExactlyInAnyOrder(20L, 21L);
        assertThat(eventCount()).isOne();
    }

    @Test
    void recordIfAbsentSkipsARecordedIdAndTheBusinessChangeStillCommits() {
        UUID id = recordedOwnId();

        boolean recorded = dsl.transactionResult(tx -> {
            insertOrder(tx.dsl(), 30L);
            return outbox.recordIfAbsent(
                    tx.dsl(), NewEvent.of(new OrderPlaced(30L, BigDecimal.TEN)).withId(id));
        });

        assertThat(recorded).isFalse();
        assertThat(orderIds()).containsExactly(30L);
        assertThat(eventCount()).isOne();
        assertThat(event(id).getPayload().data()).contains("\"orderId\": 1");
    }

    @Test
    void recordIfAbsentRecordsANewId() {
        UUID id = IdGenerator.uuidV7().next();

        boolean recorded = dsl.transactionResult(tx -> outbox.recordIfAbsent(
                tx.dsl(), NewEvent.of(new OrderShipped(31L)).withId(id)));

        assertThat(recorded).isTrue();
        assertThat(event(id).getEventType()).isEqualTo("order.shipped");
    }

    @Test
    void recordIfAbsentWaitsForAConcurrentWriterOfTheSameIdAndSkipsWhenItCommits() throws Exception {
        UUID id = IdGenerator.uuidV7().next();
        CountDownLatch firstWrote = new CountDownLatch(1);
        CountDownLatch secondStarted = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> first = pool.submit(() -> dsl.transactionResult(tx -> {
                boolean r = outbox.recordIfAbsent(
                        tx.dsl(), NewEvent.of(new OrderShipped(32L)).withId(id));
                int pid = tx.dsl()
                        .fetchSingle(DSL.field("pg_backend_pid()", Integer.class))
                        .value1();
                firstWrote.countDown();
                secondStarted.await();
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> db.waitersOn(pid) == 1); // the second call waits on this row
                return r;
            }));
            firstWrote.await();
            boolean second = dsl.transactionResult(tx -> {
                secondStarted.countDown();
                return outbox.recordIfAbsent(
                        tx.dsl(), NewEvent.of(new OrderShipped(33L)).withId(id));
            });
            assertThat(first.get()).isTrue();
            assertThat(second).isFalse();
        } finally {
            pool.shutdownNow();
        }
        assertThat(eventCount()).isOne();
        assertThat(event(id).getPayload().data()).contains("32");
    }

    @Test
    void recordAllWritesNoneOfABatchWithRecordedIdsAndNamesThemAll() {
        UUID a = recordedOwnId();
        UUID b = recordedOwnId();
        UUID fresh = IdGenerator.uuidV7().next();

        dsl.transaction(tx -> {
            insertOrder(tx.dsl(), 40L);
            assertThatThrownBy(() -> outbox.recordAll(
                            tx.dsl(),
                            List.of(
                                    NewEvent.of(new OrderShipped(1L)).withId(a),
                                    NewEvent.of(new OrderShipped(2L)).withId(fresh),
                                    new OrderShipped(3L),
                                    NewEvent.of(new OrderShipped(4L)).withId(b))))
                    .isInstanceOfSatisfying(
                            DuplicateEventException.class,
                            e -> assertThat(e.ids()).containsExactly(a, b))
                    .hasMessageContaining("2 event ids are already recorded: " + a + ", " + b);
        });

        assertThat(orderIds()).containsExactly(40L);
        assertThat(events(dsl).select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).fetchSet(OUTBOX_EVENTS.ID))
                .containsExactlyInAnyOrder(a, b);
    }

    @Test
    void recordAllRefusesAnIdGivenTwiceBeforeWritingAnything() {
        UUID id = IdGenerator.uuidV7().next();

        assertThatThrownBy(() -> dsl.transaction(tx -> outbox.recordAll(
                        tx.dsl(),
                        List.of(
                                new OrderShipped(1L),
                                NewEvent.of(new OrderShipped(2L)).withId(id),
                                NewEvent.of(new OrderShipped(3L)).withId(id)))))
                .isInstanceOfSatisfying(
                        DuplicateEventException.class, e -> assertThat(e.ids()).containsExactly(id));
        assertThatThrownBy(() -> dsl.transaction(tx -> outbox.recordAllIfAbsent(
                        tx.dsl(),
                        List.of(
                                NewEvent.of(new OrderShipped(2L)).withId(id),
                                NewEvent.of(new OrderShipped(3L)).withId(id)))))
                .isInstanceOf(DuplicateEventException.class);

        assertThat(eventCount()).isZero();
    }

    @Test
    void recordAllIfAbsentWritesTheNewEventsAndReturnsTheirIdsInOrder() {
        UUID recorded = recordedOwnId();
        UUID fresh = IdGenerator.uuidV7().next();

        List<UUID> written = dsl.transactionResult(tx -> outbox.recordAllIfAbsent(
                tx.dsl(),
                List.of(
                        NewEvent.of(new OrderShipped(1L)).withId(fresh),
                        NewEvent.of(new OrderShipped(2L)).withId(recorded),
                        new OrderShipped(3L))));

        assertThat(written).hasSize(2).startsWith(fresh).doesNotContain(recorded);
        assertThat(eventCount()).isEqualTo(3);
        List<UUID> again = dsl.transactionResult(tx -> outbox.recordAllIfAbsent(
                tx.dsl(),
                List.of(
                        NewEvent.of(new OrderShipped(1L)).withId(fresh),
                        NewEvent.of(new OrderShipped(2L)).withId(recorded))));
        assertThat(again).isEmpty();
    }

    @Test
    void storesTheOrderingKeyAndTraceHeaders() {
        String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        UUID id = dsl.transactionResult(tx -> outbox.record(
                tx.dsl(),
                NewEvent.of(new OrderShipped(5L))
                        .withOrderingKey("order-5")
                        .withTraceparent(traceparent)
                        .withTracestate("congo=t61rcWkgMzE")));

        OutboxEventsRecord row = event(id);
        assertThat(row.getOrderingKey()).isEqualTo("order-5");
        assertThat(row.getTraceparent()).isEqualTo(traceparent);
        assertThat(row.getTracestate()).isEqualTo("congo=t61rcWkgMzE");
        assertThat(row.getEventType()).isEqualTo("order.shipped");
    }

    @Test
    void refusesAMalformedTraceparentOrOrderingKeyBeforeRecording() {
        assertThatThrownBy(() -> NewEvent.of(new OrderShipped(1L)).withTraceparent("not-a-traceparent"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("traceparent");
        assertThatThrownBy(() -> NewEvent.of(new OrderShipped(1L)).withOrderingKey(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("orderingKey");
        assertThatThrownBy(() -> NewEvent.of(new OrderShipped(1L)).withTracestate("x".repeat(513)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tracestate");
    }

    @Test
    void refusesANewEventInsideANewEvent() {
        assertThatThrownBy(() -> NewEvent.of(NewEvent.of(new OrderShipped(1L))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NewEvent.payload");
    }

    @Test
    void refusesAnUnnamedEventClassSayingHowToNameIt() {
        assertThatThrownBy(() -> dsl.transaction(tx -> outbox.record(tx.dsl(), new Unnamed(1L))))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining(Unnamed.class.getName())
                .hasMessageContaining("@EventType(")
                .hasMessageContaining("register it in EventTypes");
        assertThat(eventCount()).isZero();
    }

    @Test
    void takesTheNameFromTheRegistryBeforeTheAnnotation() {
        Outbox registered = Outbox.builder()
                .tables(db.tables())
                .notifications(false)
                .eventTypes(EventTypes.builder()
                        .register("order.placed.v2", OrderPlaced.class)
                        .register("unnamed", Unnamed.class)
                        .build())
                .build();

        UUID annotated = dsl.transactionResult(tx -> registered.record(tx.dsl(), new OrderPlaced(1L, BigDecimal.ONE)));
        UUID unnamed = dsl.transactionResult(tx -> registered.record(tx.dsl(), new Unnamed(1L)));
        UUID viaAnnotation = dsl.transactionResult(tx -> registered.record(tx.dsl(), new OrderShipped(1L)));

        assertThat(event(annotated).getEventType()).isEqualTo("order.placed.v2");
        assertThat(event(unnamed).getEventType()).isEqualTo("unnamed");
        assertThat(event(viaAnnotation).getEventType()).isEqualTo("order.shipped");
        assertThat(registered.eventTypes().classOf("order.placed.v2")).contains(OrderPlaced.class);
    }

    @Test
    void takesAnExplicitEventTypeBeforeAnyOther() {
        UUID id = dsl.transactionResult(
                tx -> outbox.record(tx.dsl(), NewEvent.of(new Unnamed(1L)).withEventType("legacy.unnamed")));
        assertThat(event(id).getEventType()).isEqualTo("legacy.unnamed");
    }

    @Test
    void refusesConflictingRegistrations() {
        assertThatThrownBy(() ->
                        EventTypes.builder().register("a", OrderPlaced.class).register("b", OrderPlaced.class))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("registered twice");
        assertThatThrownBy(() ->
                        EventTypes.builder().register("a", OrderPlaced.class).register("a", Unnamed.class))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("registered for both");
        assertThatThrownBy(() -> EventTypes.builder().register("not a name", OrderPlaced.class))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("event type must match");
    }

    /** Every refusal of {@link JacksonEventSerializerTest}, now inside a transaction. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.outbox.api.JacksonEventSerializerTest#unstorableEvents")
    void refusesAnUnstorableEventBeforeWritingAnything(String what, Object payload, String path, String problem) {
        dsl.transaction(tx -> {
            insertOrder(tx.dsl(), 20L);
            NewEvent bad = NewEvent.of(payload).withEventType("bad.event");
            assertThatThrownBy(() -> outbox.recordAll(tx.dsl(), List.of(new OrderPlaced(20L, BigDecimal.ONE), bad)))
                    .isInstanceOf(EventEncodingException.class)
                    .hasMessageContaining("'bad.event'")
                    .hasMessageContaining(path);
            assertThatThrownBy(() -> outbox.record(tx.dsl(), bad)).isInstanceOf(EventEncodingException.class);
            // nothing was sent: the transaction is still usable and holds no event
            assertThat(events(tx.dsl()).fetchCount(OUTBOX_EVENTS)).isZero();
        });
        assertThat(eventCount()).isZero();
        assertThat(dsl.fetchCount(DSL.table("orders"))).isOne();
    }

    @Test
    void recordsAPayloadWithUnicodeAndEscapesIntact() {
        String text = "quote \" backslash \\ tab \t newline \n emoji 😀 accents é";
        UUID id = dsl.transactionResult(
                tx -> outbox.record(tx.dsl(), NewEvent.of(new Note(text)).withEventType("note")));
        assertThat(outbox.serializer().deserialize(event(id).getPayload().data(), Note.class))
                .isEqualTo(new Note(text));
    }

    @Test
    void storesCreatedAtFromTheClockInUtc() {
        Outbox tokyo = Outbox.builder()
                .tables(db.tables())
                .notifications(false)
                .clock(Clock.fixed(NOW, java.time.ZoneId.of("Asia/Tokyo")))
                .build();
        UUID id = dsl.transactionResult(tx -> tokyo.record(tx.dsl(), new OrderShipped(1L)));
        assertThat(event(id).getCreatedAt()).isEqualTo(OffsetDateTime.ofInstant(NOW, ZoneOffset.UTC));
    }
}
