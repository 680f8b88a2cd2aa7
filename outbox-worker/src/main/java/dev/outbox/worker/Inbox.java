package dev.outbox.worker;

import static dev.outbox.schema.Tables.OUTBOX_INBOX;

import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.internal.DurationLimits;
import dev.outbox.flyway.OutboxTables;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The inbox of idempotent consumers (opt-in: migrate its table with
 * {@code OutboxMigrations.migrateInbox(dataSource, tables)}): remembers which (consumer, message id)
 * pairs were handled, in the application's own transaction, so that a side effect runs once however
 * often a message arrives.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.builder().tables(OutboxTables.defaults()).build();
 *
 * dsl.transaction(tx -> inbox.runOnce(tx.dsl(), "billing", context.eventId().toString(),
 *         db -> db.insertInto(INVOICES).set(...).execute()));
 * }</pre>
 *
 * <p>{@link #runOnce} inserts the pair with {@code ON CONFLICT DO NOTHING} and applies the effect only
 * when the row is new; a concurrent duplicate waits for the first transaction and then finds the pair
 * (or, if the first rolled back, applies the effect itself). No exception drives the flow.
 */
public final class Inbox {

    private final OutboxTables tables;
    private final Clock clock;

    private Inbox(OutboxTables tables, Clock clock) {
        this.tables = tables;
        this.clock = clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Applies {@code effect} in the transaction of {@code tx} unless {@code (consumer, messageId)} was
     * recorded before; returns true when it applied it. The pair and the effect commit or roll back
     * together with the caller's transaction.
     *
     * @throws IllegalStateException when {@code tx} is not inside a transaction (auto-commit)
     * @throws IllegalArgumentException when the consumer or message id is empty or longer than 255 characters
     */
    public boolean runOnce(DSLContext tx, String consumer, String messageId, InboxEffect effect) {
        Objects.requireNonNull(tx, "tx");
        Objects.requireNonNull(effect, "effect");
        check("consumer", consumer);
        check("messageId", messageId);
        boolean autoCommit = tx.connectionResult(c -> c.getAutoCommit());
        if (autoCommit) {
            throw new IllegalStateException(
                    "Inbox.runOnce needs the caller's open transaction, but the connection is in auto-commit"
                            + " mode: call it inside dsl.transaction(tx -> inbox.runOnce(tx.dsl(), ...))");
        }
        int inserted = OutboxDsl.mapped(tx, tables)
                .insertInto(OUTBOX_INBOX, OUTBOX_INBOX.CONSUMER, OUTBOX_INBOX.MESSAGE_ID, OUTBOX_INBOX.PROCESSED_AT)
                .values(consumer, messageId, now())
                .onConflictDoNothing()
                .execute();
        if (inserted == 0) {
            return false;
        }
        effect.apply(tx);
        return true;
    }

    /** True when {@code (consumer, messageId)} is recorded (as seen by {@code ctx}). */
    public boolean seen(DSLContext ctx, String consumer, String messageId) {
        DSLContext db = OutboxDsl.mapped(ctx, tables);
        return db.fetchExists(db.selectOne()
                .from(OUTBOX_INBOX)
                .where(OUTBOX_INBOX.CONSUMER.eq(consumer))
                .and(OUTBOX_INBOX.MESSAGE_ID.eq(messageId)));
    }

    /**
     * Deletes entries processed more than {@code age} ago, oldest first, {@code batchSize} rows per
     * statement (each its own short transaction when {@code ctx} is in auto-commit mode); returns how
     * many it deleted. Keep {@code age} well above the longest time a message can be redelivered (and
     * at most 100 years).
     */
    public int purgeOlderThan(DSLContext ctx, Duration age, int batchSize) {
        Objects.requireNonNull(age, "age");
        if (age.isNegative()) {
            throw new IllegalArgumentException("age must not be negative, got " + age);
        }
        DurationLimits.atMostMax("age", age);
        if (batchSize < 1 || batchSize > 100_000) {
            throw new IllegalArgumentException("batchSize must be 1..100000, got " + batchSize);
        }
        OffsetDateTime cutoff = now().minus(age);
        DSLContext db = OutboxDsl.mapped(ctx, tables);
        int total = 0;
        while (true) {
            int deleted = db.deleteFrom(OUTBOX_INBOX)
                    .where(DSL.row(OUTBOX_INBOX.CONSUMER, OUTBOX_INBOX.MESSAGE_ID)
                            .in(db.select(OUTBOX_INBOX.CONSUMER, OUTBOX_INBOX.MESSAGE_ID)
                                    .from(OUTBOX_INBOX)
                                    .where(OUTBOX_INBOX.PROCESSED_AT.lt(cutoff))
                                    .orderBy(OUTBOX_INBOX.PROCESSED_AT)
                                    .limit(batchSize)))
                    .execute();
            total += deleted;
            if (deleted < batchSize) {
                return total;
            }
        }
    }

    private OffsetDateTime now() {
        return OffsetDateTime.now(clock).withOffsetSameInstant(ZoneOffset.UTC);
    }

    private static void check(String field, String value) {
        Objects.requireNonNull(value, field);
        if (value.isEmpty() || value.length() > 255) {
            throw new IllegalArgumentException(field + " must be 1..255 characters, got " + value.length());
        }
    }

    /** Settings of an {@link Inbox}, like every other builder of ours. */
    public static final class Builder {
        private OutboxTables tables = OutboxTables.defaults();
        private Clock clock = Clock.systemUTC();

        private Builder() {}

        /** The schema and table names chosen at migration time. Default {@link OutboxTables#defaults()}. */
        public Builder tables(OutboxTables tables) {
            this.tables = Objects.requireNonNull(tables, "tables");
            return this;
        }

        /** The clock of the time each pair is recorded (and of {@link Inbox#purgeOlderThan}). Default the system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Inbox build() {
            return new Inbox(tables, clock);
        }
    }
}
