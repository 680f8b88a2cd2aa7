package dev.outbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void slicesInOrderEachSortedTheLastShorter() {
        long[] values = {3, 1, 2, 9, 8, 7, 5};

        assertThat(Stats.sortedSlices(values, 3))
                .containsExactly(new long[] {1, 2, 3}, new long[] {7, 8, 9}, new long[] {5});
        assertThat(values).as("the values stay as they were").containsExactly(3, 1, 2, 9, 8, 7, 5);
    }

    @Test
    void noValuesNoSlices() {
        assertThat(Stats.sortedSlices(new long[0], 3)).isEmpty();
    }

    @Test
    void refusesSlicesOfNothing() {
        assertThatThrownBy(() -> Stats.sortedSlices(new long[] {1}, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slices of 0");
    }
}
