package dev.outbox.admin;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.api.Outbox;
import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A requeue, or a skip of a blocked head, wakes the relays as a recording does: one NOTIFY on the
 * relays' channel, delivered when the change commits, so that a looping relay claims the delivery
 * at once instead of at its next poll. A dry run, or a call that changed nothing, sends none.
 */
class RequeueWakesRelaysIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static AdminFixture rows;

    /** A channel of this test's own: other tests on the same database notify the default one. */
    final String channel =
            "admin_wake_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    Connection listener;

    @BeforeAll
    static void setUp() {
        rows = new AdminFixture(db.dataSource(), db.tables());
    }

    @BeforeEach
    void listen() throws Exception {
        db.truncate();
        listener = db.dataSource().getConnection();
        try (Statement st = listener.createStatement()) {
            st.execute("LISTEN " + channel);
        }
    }

    @AfterEach
    void close() throws SQLException {
        listener.close();
    }

    /** What arrives within {@code waitMillis}, and then until half a second passes without more. */
    private List<PGNotification> notifications(int waitMillis) throws SQLException {
        PGConnection pg = listener.unwrap(PGConnection.class);
        List<PGNotification> all = new ArrayList<>();
        PGNotification[] got = pg.getNotifications(waitMillis);
        while (got != null && got.length > 0) {
            all.addAll(List.of(got));
            got = pg.getNotifications(500);
        }
        return all;
    }

    private OutboxAdmin admin() {
        return OutboxAdmin.of(db.dataSource(), db.tables()).withNotifyChannel(channel);
    }

    private UUID blockedHead(String key) {
        UUID id = rows.failed(
                "order.placed",
                "send-confirmation",
                "emails",
                "job_failed",
                Instant.now().minusSeconds(60));
        rows.mapped
                .update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.ORDERING_KEY, key)
                .set(OUTBOX_DELIVERIES.ORDERING_POSITION, 1L)
                .set(OUTBOX_DELIVERIES.ORDERING_POLICY, "block")
                .where(OUTBOX_DELIVERIES.ID.eq(id))
                .execute();
        return id;
    }

    @Test
    void aRequeueNotifiesTheRelaysChannelOncePerBatch() throws Exception {
        for (int i = 0; i < 3; i++) {
            rows.failed(
                    "order.placed",
                    "send-confirmation",
                    "emails",
                    "timeout",
                    Instant.now().minusSeconds(60));
        }

        ChangeResult result = admin().withBatchSize(2).requeue(FailedFilter.all(), false);

        assertThat(result.deliveries()).isEqualTo(3);
        List<PGNotification> got = notifications(5_000);
        assertThat(got)
                .as("one NOTIFY per batch's transaction (2 of 2, then 1)")
                .extracting(PGNotification::getName)
                .containsExactly(channel, channel);
    }

    @Test
    void aRequeueOrSkipOfBlockedHeadsNotifiesToo() throws Exception {
        UUID a = blockedHead("order-1");
        UUID b = blockedHead("order-2");

        assertThat(admin().skipBlocked(List.of(a), false).deliveries()).isOne();
        assertThat(notifications(5_000)).extracting(PGNotification::getName).containsExactly(channel);
        assertThat(admin().requeueBlocked(List.of(b), false).deliveries()).isOne();
        assertThat(notifications(5_000)).extracting(PGNotification::getName).containsExactly(channel);
    }

    @Test
    void aDryRunOrACallThatChangedNothingSendsNone() throws Exception {
        UUID failed = rows.failed(
                "order.placed",
                "send-confirmation",
                "emails",
                "timeout",
                Instant.now().minusSeconds(60));
        UUID head = blockedHead("order-3");

        admin().requeue(FailedFilter.all(), true);
        admin().requeueBlocked(List.of(head), true);
        admin().skipBlocked(List.of(head), true);
        admin().requeue(FailedFilter.ids(Set.of(UUID.randomUUID())), false);
        OutboxAdmin.of(db.dataSource(), db.tables())
                .withoutNotifications()
                .requeue(FailedFilter.ids(Set.of(failed)), false);

        assertThat(notifications(1_000)).as("notifications").isEmpty();
    }

    @Test
    void theChannelIsTheRecordingsDefaultAndABadOneIsRefusedByName() {
        assertThat(OutboxAdmin.of(db.dataSource(), db.tables()).notifyChannel())
                .contains(Outbox.DEFAULT_NOTIFY_CHANNEL);
        assertThat(OutboxAdmin.of(db.dataSource(), db.tables())
                        .withoutNotifications()
                        .notifyChannel())
                .isEmpty();
        List<String> bad = new ArrayList<>(List.of("Outbox", "a-b", "x".repeat(64), ""));
        for (String channel : bad) {
            assertThatThrownBy(
                            () -> OutboxAdmin.of(db.dataSource(), db.tables()).withNotifyChannel(channel))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("notifyChannel must be a lower-case identifier");
        }
        assertThatThrownBy(() -> OutboxAdmin.of(db.dataSource(), db.tables()).withNotifyChannel("x\n".repeat(1 << 19)))
                .as("a refusal quotes a bounded, escaped prefix")
                .satisfies(e -> {
                    assertThat(e.getMessage()).hasSizeLessThan(1_000).doesNotContain("\n");
                });
    }
}
