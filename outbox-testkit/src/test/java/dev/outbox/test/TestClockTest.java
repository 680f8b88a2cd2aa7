package dev.outbox.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class TestClockTest {

    private static final Instant START = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void advancesByTheDurationGiven() {
        TestClock clock = TestClock.at(START);

        clock.advance(Duration.ofSeconds(30));

        assertThat(clock.instant()).isEqualTo(START.plusSeconds(30));
    }

    @Test
    void refusesToAdvanceMoreThanAHundredYearsAndStaysWhereItWas() {
        TestClock clock = TestClock.at(START);

        assertThatThrownBy(() -> clock.advance(ChronoUnit.FOREVER.getDuration()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be at most 36500 days");
        assertThat(clock.instant()).isEqualTo(START);
    }
}
