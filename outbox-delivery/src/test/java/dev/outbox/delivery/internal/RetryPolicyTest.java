package dev.outbox.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void givesAFirstAttemptAndTwoRetriesFor60And120() {
        List<Integer> delays = List.of(60, 120);
        assertThat(RetryPolicy.nextDelaySeconds(1, delays)).isEqualTo(OptionalInt.of(60));
        assertThat(RetryPolicy.nextDelaySeconds(2, delays)).isEqualTo(OptionalInt.of(120));
        assertThat(RetryPolicy.nextDelaySeconds(3, delays)).isEmpty();
    }

    @Test
    void failsAfterTheFirstErrorWithNoDelays() {
        assertThat(RetryPolicy.nextDelaySeconds(1, List.of())).isEmpty();
    }

    @Test
    void saysLastAttemptExactlyOnTheFinalAttempt() {
        assertThat(RetryPolicy.lastAttempt(1, 2)).isFalse();
        assertThat(RetryPolicy.lastAttempt(2, 2)).isFalse();
        assertThat(RetryPolicy.lastAttempt(3, 2)).isTrue();
        assertThat(RetryPolicy.lastAttempt(1, 0)).isTrue();
    }

    @Test
    void agreesWithItselfOnEveryAttemptOfEveryScheduleUpTo100Retries() {
        for (int retries = 0; retries <= 100; retries++) {
            List<Integer> delays = java.util.Collections.nCopies(retries, 7);
            for (int attempts = 1; attempts <= retries + 1; attempts++) {
                assertThat(RetryPolicy.lastAttempt(attempts, retries))
                        .as("attempt %d of %d retries", attempts, retries)
                        .isEqualTo(
                                RetryPolicy.nextDelaySeconds(attempts, delays).isEmpty());
            }
        }
    }

    @Test
    void refusesAttemptsBelowOne() {
        assertThatThrownBy(() -> RetryPolicy.nextDelaySeconds(0, List.of(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("attempts");
    }
}
