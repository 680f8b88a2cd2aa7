package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RetryScheduleTest {

    private static List<Duration> exponential(int initialSeconds, double factor, int capSeconds, int retries) {
        return RetrySchedule.exponential(
                Duration.ofSeconds(initialSeconds), factor, Duration.ofSeconds(capSeconds), retries);
    }

    @Test
    void turnsExponentialFrom5SecondsFactor3Cap1Hour6RetriesIntoTheExplicitList() {
        assertThat(exponential(5, 3, 3600, 6)).isEqualTo(RetrySchedule.seconds(5, 15, 45, 135, 405, 1215));
    }

    @Test
    void capsEveryDelay() {
        assertThat(exponential(5, 3, 3600, 9))
                .isEqualTo(RetrySchedule.seconds(5, 15, 45, 135, 405, 1215, 3600, 3600, 3600));
        assertThat(exponential(60, 10, 100, 3)).isEqualTo(RetrySchedule.seconds(60, 100, 100));
    }

    @Test
    void roundsFractionalDelaysToWholeSeconds() {
        assertThat(exponential(5, 1.5, 3600, 4)).isEqualTo(RetrySchedule.seconds(5, 8, 11, 17));
    }

    @Test
    void givesNoDelaysForNoRetries() {
        assertThat(exponential(5, 2, 60, 0)).isEmpty();
    }

    @Test
    void givesFixedDelays() {
        assertThat(RetrySchedule.fixed(Duration.ofSeconds(30), 3)).isEqualTo(RetrySchedule.seconds(30, 30, 30));
    }

    @Test
    void givesExplicitDelaysInSeconds() {
        assertThat(RetrySchedule.seconds(5, 30)).containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(30));
        assertThat(RetrySchedule.seconds()).isEmpty();
    }

    @Test
    void staysWithinIntAtTheLargestCapAndMostRetries() {
        assertThat(exponential(1, 1000, Route.MAX_RETRY_DELAY_SECONDS, Route.MAX_RETRIES))
                .hasSize(Route.MAX_RETRIES)
                .endsWith(Duration.ofSeconds(Route.MAX_RETRY_DELAY_SECONDS))
                .allSatisfy(d -> assertThat(d).isPositive());
    }

    @Test
    void refusesACapBeyondThirtyDays() {
        assertThatThrownBy(() -> exponential(1, 1000, Integer.MAX_VALUE, Route.MAX_RETRIES))
                .hasMessage("cap must be at most 2592000 seconds (30 days), got 2147483647 seconds");
        assertThatThrownBy(() -> RetrySchedule.exponentialSeconds(1, 1000, Integer.MAX_VALUE, Route.MAX_RETRIES))
                .hasMessage("capSeconds must be at most 2592000 (30 days), got 2147483647");
    }

    @Test
    void refusesBadArgumentsNamingThem() {
        assertThatThrownBy(() -> exponential(0, 3, 3600, 6)).hasMessageContaining("initial");
        assertThatThrownBy(() -> exponential(-5, 3, 3600, 6)).hasMessageContaining("initial");
        assertThatThrownBy(() -> exponential(5, 0.5, 3600, 6)).hasMessageContaining("factor");
        assertThatThrownBy(() -> exponential(5, Double.NaN, 3600, 6)).hasMessageContaining("factor");
        assertThatThrownBy(() -> exponential(5, Double.POSITIVE_INFINITY, 3600, 6))
                .hasMessageContaining("factor");
        assertThatThrownBy(() -> exponential(5, 3, 4, 6)).hasMessageContaining("cap");
        assertThatThrownBy(() -> exponential(5, 3, 3600, -1)).hasMessageContaining("retries");
        assertThatThrownBy(() -> exponential(5, 3, 3600, Route.MAX_RETRIES + 1)).hasMessageContaining("retries");
        assertThatThrownBy(() -> RetrySchedule.fixed(Duration.ZERO, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RetrySchedule.exponentialSeconds(0, 3, 3600, 6))
                .hasMessageContaining("initialSeconds");
        assertThatThrownBy(() -> RetrySchedule.exponentialSeconds(5, 3, 4, 6)).hasMessageContaining("capSeconds");
    }

    @Test
    void refusesSubSecondDurationsNamingThem() {
        assertThatThrownBy(() -> RetrySchedule.exponential(Duration.ofMillis(500), 2, Duration.ofSeconds(60), 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("initial must be a whole number of seconds, got PT0.5S (500 ms)");
        assertThatThrownBy(() -> RetrySchedule.exponential(Duration.ofSeconds(1), 2, Duration.ofMillis(60_500), 3))
                .hasMessage("cap must be a whole number of seconds, got PT1M0.5S (60500 ms)");
    }
}
