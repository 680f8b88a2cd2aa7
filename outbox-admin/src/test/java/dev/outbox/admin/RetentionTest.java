package dev.outbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RetentionTest {

    static Stream<Named<Function<Duration, Retention>>> ages() {
        return Stream.of(
                Named.of("completed", age -> Retention.of().completed(age)),
                Named.of("failed", age -> Retention.of().failed(age)),
                Named.of("unrouted", age -> Retention.of().unrouted(age)));
    }

    @ParameterizedTest
    @MethodSource("ages")
    void refusesAnAgeOfMoreThanAHundredYearsNamingIt(Function<Duration, Retention> setting) {
        for (Duration huge : new Duration[] {
            ChronoUnit.FOREVER.getDuration(), Duration.ofSeconds(Long.MAX_VALUE), Duration.ofDays(36_501)
        }) {
            assertThatThrownBy(() -> setting.apply(huge))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageEndingWith("age must be at most 36500 days (100 years), got " + huge);
        }
    }

    @Test
    void takesAnAgeOfAHundredYears() {
        assertThat(Retention.of().completed(Duration.ofDays(36_500)).completed())
                .isEqualTo(Duration.ofDays(36_500));
    }
}
