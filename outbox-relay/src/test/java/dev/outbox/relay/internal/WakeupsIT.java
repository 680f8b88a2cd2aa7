package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The wake-ups of a looping relay: a burst of commits starts one pass, not one pass each. */
class WakeupsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    /** A channel of this test alone: channels are database-wide. */
    final String channel =
            "outbox_wakeups_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);

    private Wakeups wakeups(Duration linger) {
        return new Wakeups(
                () -> {
                    try {
                        return db.server().connect();
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                },
                channel,
                linger);
    }

    private void notifyTimes(int times) throws SQLException {
        try (Connection c = db.server().connect();
                Statement s = c.createStatement()) {
            for (int i = 0; i < times; i++) {
                s.execute("NOTIFY " + channel + ", '" + i + "'"); // one commit each (auto-commit)
            }
        }
    }

    @Test
    void oneWakeUpTakesTheNotificationsOfABurst() throws Exception {
        try (Wakeups wakeups = wakeups(Duration.ofMillis(300))) {
            wakeups.listen();
            notifyTimes(3);
            assertThat(wakeups.await(Duration.ofSeconds(10), () -> false)).isTrue();
            assertThat(wakeups.await(Duration.ofSeconds(1), () -> false)).isFalse();
        }
    }

    @Test
    void aCommitAfterTheWakeUpWakesAgain() throws Exception {
        // nothing committed after the lingering is lost: the next pass is woken for it
        try (Wakeups wakeups = wakeups(Duration.ofMillis(50))) {
            wakeups.listen();
            notifyTimes(1);
            assertThat(wakeups.await(Duration.ofSeconds(10), () -> false)).isTrue();
            notifyTimes(1);
            assertThat(wakeups.await(Duration.ofSeconds(10), () -> false)).isTrue();
        }
    }
}
