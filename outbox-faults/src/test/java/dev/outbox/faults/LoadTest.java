package dev.outbox.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadTest {

    /** One sample a second from 0 to {@code seconds}: events at 100/s, completions at {@code rates[s]} per second. */
    static List<Load.Sample> samples(int... rates) {
        List<Load.Sample> samples = new ArrayList<>();
        long completed = 0;
        for (int s = 0; s < rates.length; s++) {
            samples.add(new Load.Sample(s, completed, 100L * s));
            completed += rates[s];
        }
        return samples;
    }

    @Test
    void recoveryIsTheFirstSecondAfterWhichEveryWindowKeepsUp() {
        // stalled for 4 s after the fault at 0, a burst of backlog, then at the offered rate
        List<Load.Sample> s = samples(0, 0, 0, 0, 300, 300, 100, 100, 100, 100, 100, 100, 100, 100, 100);
        double recovered = Load.recovery(s, 0, 14);
        // the window 1..6 completes 0+0+0+300+300 = 600 ≥ 0.8 × 500, the one before it 300
        assertThat(recovered).isEqualTo(6.0);
        assertThat(Load.goodput(s, recovered, 14)).isEqualTo(1.0);
    }

    @Test
    void aWindowThatFallsBehindAfterwardsMovesTheRecoveryPastIt() {
        List<Load.Sample> s = samples(100, 100, 100, 100, 100, 100, 0, 0, 0, 0, 100, 100, 100, 100, 100, 100, 100, 100);
        double recovered = Load.recovery(s, 0, 17);
        // windows holding two of the four stalled seconds (6..9) fall behind: the last starts at 8
        assertThat(recovered).isEqualTo(14.0);
    }

    @Test
    void neverKeepingUpIsNaN() {
        List<Load.Sample> s = samples(10, 10, 10, 10, 10, 10, 10, 10, 10, 10);
        assertThat(Load.recovery(s, 0, 9)).isNaN();
        assertThat(Load.goodput(s, Double.NaN, 9)).isNaN();
        assertThat(Load.recovery(samples(100, 100, 100), 0, 2))
                .as("shorter than one window")
                .isNaN();
    }
}
