package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class UnroutedWarningsTest {

    static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    @Test
    void warnsOncePerTypePerTenMinutes() {
        UnroutedWarnings warnings = new UnroutedWarnings();

        assertThat(warnings.due("invoice.sent", T0)).isTrue();
        assertThat(warnings.due("invoice.sent", T0.plusSeconds(1))).isFalse();
        assertThat(warnings.due("invoice.sent", T0.plus(Duration.ofMinutes(10)).minusMillis(1)))
                .isFalse();
        assertThat(warnings.due("invoice.sent", T0.plus(Duration.ofMinutes(10))))
                .isTrue();
        assertThat(warnings.due("invoice.sent", T0.plus(Duration.ofMinutes(15))))
                .isFalse();
    }

    @Test
    void countsEachTypeOnItsOwn() {
        UnroutedWarnings warnings = new UnroutedWarnings();

        assertThat(warnings.due("invoice.sent", T0)).isTrue();
        assertThat(warnings.due("order.lost", T0.plusSeconds(1))).isTrue();
        assertThat(warnings.due("invoice.sent", T0.plusSeconds(2))).isFalse();
    }

    @Test
    void warnsAgainWhenTheClockWentBack() {
        UnroutedWarnings warnings = new UnroutedWarnings();

        assertThat(warnings.due("invoice.sent", T0)).isTrue();
        assertThat(warnings.due("invoice.sent", T0.minusSeconds(1))).isTrue();
        assertThat(warnings.due("invoice.sent", T0)).isFalse();
    }

    @Test
    void forgetsOnlyWhatItMustWhenFull() {
        UnroutedWarnings warnings = new UnroutedWarnings();
        for (int i = 0; i < UnroutedWarnings.MAX_TYPES; i++) {
            warnings.due("type." + i, T0);
        }

        assertThat(warnings.due("type.new", T0.plusSeconds(1))).isTrue();
        assertThat(warnings.due("type.new", T0.plusSeconds(2))).isFalse();
    }
}
