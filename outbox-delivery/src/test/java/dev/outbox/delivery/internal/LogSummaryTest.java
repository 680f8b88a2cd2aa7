package dev.outbox.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.delivery.internal.DeliveryLogTest.CapturingLogger;
import dev.outbox.delivery.internal.DeliveryLogTest.Line;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

class LogSummaryTest {

    final AtomicLong nanos = new AtomicLong();
    final CapturingLogger log = new CapturingLogger();
    final LogSummary summary = new LogSummary(
            log, "relay", List.of("events routed", "dispatched", "timed out"), nanos::get, Duration.ofSeconds(60));

    @Test
    void writesOneInfoLineOfTheIntervalsSumsLeavingOutTheZeros() {
        summary.add(3, 2, 0);
        summary.add(0, 0, 0);
        summary.add(1_500, 1_200, 0);
        nanos.addAndGet(Duration.ofSeconds(59).toNanos());
        summary.flushIfDue();
        assertThat(log.lines).as("before the interval has passed").isEmpty();

        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        summary.flushIfDue();

        assertThat(log.lines)
                .containsExactly(new Line(
                        Level.INFO, "relay in the last 60 s: 3 passes, 1,503 events routed, 1,202 dispatched"));
    }

    @Test
    void anIntervalInWhichNothingHappenedWritesNothing() {
        summary.add(0, 0, 0);
        summary.add(0, 0, 0);
        nanos.addAndGet(Duration.ofMinutes(5).toNanos());
        summary.flushIfDue();
        assertThat(log.lines).isEmpty();

        summary.add(0, 0, 4);
        summary.flush(); // the loop stops: what is left is written at once
        assertThat(log.lines).containsExactly(new Line(Level.INFO, "relay in the last 1 s: 1 pass, 4 timed out"));
    }

    @Test
    void eachIntervalStartsAfresh() {
        summary.add(1, 0, 0);
        nanos.addAndGet(Duration.ofSeconds(60).toNanos());
        summary.flushIfDue();
        summary.add(2, 0, 0);
        nanos.addAndGet(Duration.ofSeconds(60).toNanos());
        summary.flushIfDue();
        assertThat(log.lines)
                .extracting(Line::message)
                .containsExactly(
                        "relay in the last 60 s: 1 pass, 1 events routed",
                        "relay in the last 60 s: 1 pass, 2 events routed");
    }

    @Test
    void countsThatDoNotMatchTheNamesAreRefused() {
        assertThatThrownBy(() -> summary.add(1, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("3 counts expected (events routed, dispatched, timed out), got 2");
    }
}
