package dev.outbox.worker;

import static dev.outbox.schema.Tables.OUTBOX_INBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.api.OutboxDsl;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The inbox runs an application's side effect once per (consumer, message id), in the application's transaction. */
class InboxIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migratedWithInbox();

    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");

    static DSLContext dsl;
    static Inbox inbox;

    @BeforeAll
    static void setUp() {
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        dsl.createTable("effects")
                .column("message_id", SQLDataType.VARCHAR(255))
                .execute();
        inbox = Inbox.builder()
                .tables(db.tables())
                .clock(Clock.fixed(NOW, ZoneOffset.UTC))
                .build();
    }

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
        dsl.truncate("effects").execute();
    }

    private static void recordEffect(DSLContext tx, String messageId) {
        tx.insertInto(DSL.table("effects")).values(messageId).execute();
    }

    private static int effects() {
        return dsl.fetchCount(DSL.table("effects"));
    }

    @Test
    void appliesTheEffectOnceWhenTwoDuplicatesArriveConcurrently() throws Exception {
        CountDownLatch firstInserted = new CountDownLatch(1);
        CountDownLatch firstMayCommit = new CountDownLatch(1);
        AtomicInteger firstPid = new AtomicInteger();
        CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() ->
                dsl.transactionResult(tx -> inbox.runOnce(tx.dsl(), "billing", "m-1", ctx -> {
                    recordEffect(ctx, "m-1");
                    firstPid.set(ctx.fetchSingle(DSL.field("pg_backend_pid()", Integer.class))
                            .value1());
                    firstInserted.countDown();
                    await(firstMayCommit);
                })));
        assertThat(firstInserted.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> dsl.transactionResult(
                tx -> inbox.runOnce(tx.dsl(), "billing", "m-1", ctx -> recordEffect(ctx, "m-1"))));
        Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> db.waitersOn(firstPid.get()) == 1); // the duplicate waits on the first's row
        assertThat(second).isNotDone();

        firstMayCommit.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(second.get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(effects()).isEqualTo(1);
    }

    @Test
    void appliesTheEffectAgainWhenTheFirstTransactionRolledBack() {
        assertThatThrownBy(() -> dsl.transaction(tx -> inbox.runOnce(tx.dsl(), "billing", "m-2", ctx -> {
                    recordEffect(ctx, "m-2");
                    throw new IllegalStateException("business rule broken");
                })))
                .hasMessageContaining("business rule broken");
        assertThat(effects()).isZero();

        boolean applied =
                dsl.transactionResult(tx -> inbox.runOnce(tx.dsl(), "billing", "m-2", ctx -> recordEffect(ctx, "m-2")));

        assertThat(applied).isTrue();
        assertThat(effects()).isEqualTo(1);
        assertThat(inbox.seen(dsl, "billing", "m-2")).isTrue();
    }

    @Test
    void keepsConsumersApart() {
        boolean billing =
                dsl.transactionResult(tx -> inbox.runOnce(tx.dsl(), "billing", "m-3", ctx -> recordEffect(ctx, "m-3")));
        boolean shipping = dsl.transactionResult(
                tx -> inbox.runOnce(tx.dsl(), "shipping", "m-3", ctx -> recordEffect(ctx, "m-3")));

        assertThat(billing).isTrue();
        assertThat(shipping).isTrue();
        assertThat(effects()).isEqualTo(2);
    }

    @Test
    void refusesToRunOutsideATransaction() {
        assertThatThrownBy(() -> inbox.runOnce(dsl, "billing", "m-4", ctx -> recordEffect(ctx, "m-4")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("auto-commit");
        assertThat(effects()).isZero();
        assertThat(inbox.seen(dsl, "billing", "m-4")).isFalse();
    }

    @Test
    void purgesEntriesOlderThanTheGivenAgeInBatches() {
        DSLContext mapped = OutboxDsl.mapped(dsl, db.tables());
        for (int i = 0; i < 5; i++) {
            mapped.insertInto(OUTBOX_INBOX)
                    .values(
                            "billing",
                            "old-" + i,
                            NOW.minus(Duration.ofDays(10)).atOffset(ZoneOffset.UTC))
                    .execute();
        }
        mapped.insertInto(OUTBOX_INBOX)
                .values("billing", "recent", NOW.minus(Duration.ofHours(1)).atOffset(ZoneOffset.UTC))
                .execute();

        int purged = inbox.purgeOlderThan(dsl, Duration.ofDays(7), 2);

        assertThat(purged).isEqualTo(5);
        assertThat(mapped.fetchCount(OUTBOX_INBOX)).isEqualTo(1);
        assertThat(inbox.seen(dsl, "billing", "recent")).isTrue();
    }

    @Test
    void refusesToPurgeByAnAgeOfMoreThanAHundredYears() {
        // now minus such an age is no timestamp: refused by name, not an overflow
        assertThatThrownBy(() -> inbox.purgeOlderThan(dsl, java.time.temporal.ChronoUnit.FOREVER.getDuration(), 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("age must be at most 36500 days (100 years), got PT");
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
