package dev.outbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StagesTest {

    @Test
    void cutsEachSecondOfHandledEventsIntoItsStages() {
        Stages stages = new Stages(
                new long[] {1_000, 3_000, 2_000, 500},
                new long[] {10_000, 20_000, 4_000, 4_000},
                new long[] {5_000, 5_000, 7_000, 9_000});

        assertThat(stages.lines("S4", 2))
                .containsExactly(
                        "S4 stages second 0: commit→T1 p50 1.0 p99 3.0 | T1→T2 p50 10.0 p99 20.0 | T2→handler p50 5.0 p99 5.0 ms",
                        "S4 stages second 1: commit→T1 p50 0.5 p99 2.0 | T1→T2 p50 4.0 p99 4.0 | T2→handler p50 7.0 p99 9.0 ms");
    }

    @Test
    void refusesStagesOfDifferentEvents() {
        assertThatThrownBy(() -> new Stages(new long[2], new long[2], new long[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2, 2 and 1 events");
    }
}
