package dev.outbox.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.delivery.internal.DeliveryLogTest.CapturingLogger;
import dev.outbox.delivery.internal.DeliveryLogTest.Line;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class LogDigestTest {

    final AtomicLong nanos = new AtomicLong();
    final CapturingLogger log = new CapturingLogger();
    final LogDigest digest = new LogDigest(log, nanos::get, Duration.ofSeconds(10));

    @Test
    void theFirstOfAKindAndQueueIsTheCallersToLogAndTheRestAreOneLineWithACountAndASample() {
        assertThat(digest.warn("timed out", "emails", "delivery a")).isTrue();
        assertThat(digest.warn("timed out", "emails", "delivery b")).isFalse();
        assertThat(digest.warn("timed out", "emails", "delivery c")).isFalse();
        assertThat(digest.warn("timed out", "sms", "delivery d"))
                .as("another queue")
                .isTrue();
        assertThat(log.lines).isEmpty();

        nanos.addAndGet(Duration.ofSeconds(10).toNanos());
        digest.flushIfDue();

        assertThat(log.lines)
                .containsExactly(
                        new Line(Level.WARN, "2 more × timed out (queue emails) in the last 10 s, e.g. delivery b"));
    }

    @Test
    void writesNothingBeforeTheIntervalHasPassedAndStartsAfreshAfter() {
        digest.warn("timed out", "emails", "delivery a");
        digest.warn("timed out", "emails", "delivery b");
        nanos.addAndGet(Duration.ofSeconds(9).toNanos());
        digest.flushIfDue();
        assertThat(log.lines).isEmpty();

        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(digest.warn("timed out", "emails", "delivery c"))
                .as("a new interval: the first again")
                .isTrue();
        assertThat(log.lines).hasSize(1);
    }

    @Test
    void letsTheFirstErrorsOfAnIntervalThroughAndCountsTheRest() {
        for (int i = 0; i < LogDigest.ERRORS_PER_INTERVAL; i++) {
            assertThat(digest.error("delivery " + i)).isTrue();
        }
        assertThat(digest.error("delivery x")).isFalse();
        assertThat(digest.error("delivery y")).isFalse();

        digest.flush();

        assertThat(log.lines)
                .containsExactly(new Line(
                        Level.ERROR,
                        "2 more delivery(ies) failed for good in the last 1 s than are logged"
                                + " one by one (20 per 10 s), e.g. delivery x"));
        assertThat(digest.error("delivery z")).isTrue();
    }

    @Test
    void escapesTheQueueName() {
        digest.warn("dropped", "evil\nqueue", "delivery a");
        digest.warn("dropped", "evil\nqueue", "delivery b");
        digest.flush();

        assertThat(log.lines)
                .singleElement()
                .extracting(Line::message)
                .asString()
                .contains("evil\\u000aqueue")
                .doesNotContain("\n");
    }
}
