package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RetryScheduleTest {

    @Test
    void turnsExponentialFrom5SecondsFactor3Cap1Hour6RetriesIntoTheExplicitList() {
        assertThat(RetrySchedule.exponential(5, 3, 3600, 6)).containsExactly(5, 15, 45, 135, 405, 1215);
    }

    @Test
    void capsEveryDelay() {
        assertThat(RetrySchedule.exponential(5, 3, 3600, 9)).containsExactly(5, 15, 45, 135, 405, 1215, 3600, 3600, 3600);
        assertThat(RetrySchedule.exponential(60, 10, 100, 3)).containsExactly(60, 100, 100);
    }

    @Test
    void roundsFractionalDelaysToWholeSeconds() {
        assertThat(RetrySchedule.exponential(5, 1.5, 3600, 4)).containsExactly(5, 8, 11, 17);
    }

    @Test
    void givesNoDelaysForNoRetries() {
        assertThat(RetrySchedule.exponential(5, 2, 60, 0)).isEmpty();
    }

    @Test
    void givesFixedDelays() {
        assertThat(RetrySchedule.fixed(30, 3)).containsExactly(30, 30, 30);
    }

    @Test
    void staysWithinIntAtTheLargestCapAndMostRetries() {
        assertThat(RetrySchedule.exponential(1, 1000, Route.MAX_RETRY_DELAY_SECONDS, Route.MAX_RETRIES))
                .hasSize(Route.MAX_RETRIES)
                .endsWith(Route.MAX_RETRY_DELAY_SECONDS)
                .allSatisfy(d -> assertThat(d).isPositive());
    }

    @Test
    void refusesACapBeyondThirtyDays() {
        assertThatThrownBy(() -> RetrySchedule.exponential(1, 1000, Integer.MAX_VALUE, Route.MAX_RETRIES))
                .hasMessage("capSeconds must be at most 2592000 (30 days), got 2147483647");
    }

    @Test
    void refusesBadArgumentsNamingThem() {
        assertThatThrownBy(() -> RetrySchedule.exponential(0, 3, 3600, 6)).hasMessageContaining("initialSeconds");
        assertThatThrownBy(() -> RetrySchedule.exponential(-5, 3, 3600, 6)).hasMessageContaining("initialSeconds");
        assertThatThrownBy(() -> RetrySchedule.exponential(5, 0.5, 3600, 6)).hasMessageContaining("factor");
        assertThatThrownBy(() -> RetrySchedule.exponential(5, Double.NaN, 3600, 6)).hasMessageContaining("factor");
        assertThatThrownBy(() -> RetrySchedule.exponential(5, Double.POSITIVE_INFINITY, 3600, 6)).hasMessageContaining("factor");
        assertThatThrownBy(() -> RetrySchedule.exponential(5, 3, 4, 6)).hasMessageContaining("capSeconds");
        assertThatThrownBy(() -> RetrySchedule.exponential(5, 3, 3600, -1)).hasMessageContaining("retries");
        assertThatThrownBy(() -> RetrySchedule.exponential(5, 3, 3600, Route.MAX_RETRIES + 1)).hasMessageContaining("retries");
        assertThatThrownBy(() -> RetrySchedule.fixed(0, 3)).isInstanceOf(IllegalArgumentException.class);
    }
}
