package dev.outbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CommitTimesTest {

    @Test
    void measuresEachHandledEventFromItsCommit() {
        CommitTimes commits = new CommitTimes(4);
        commits.set(0, 1_000_000, 1_002_000); // made, then committing 2 ms later
        commits.set(3, 5_000_000, 5_200_000); // a slow transaction: 200 ms
        commits.set(1, 2_000_000, 2_000_500);

        // handled in the order 3, 0, 1, each latency measured from when the event was made
        long[] fromCommit = commits.fromCommitMicros(new long[] {3, 0, 1}, new long[] {230_000, 12_000, 9_500});

        assertThat(fromCommit).containsExactly(30_000, 10_000, 9_000);
    }

    @Test
    void refusesAHandledEventWithoutACommitTime() {
        CommitTimes commits = new CommitTimes(4);
        commits.set(0, 1_000_000, 1_002_000);

        assertThatThrownBy(() -> commits.fromCommitMicros(new long[] {0, 2}, new long[] {5_000, 5_000}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handled event 2");
        assertThatThrownBy(() -> commits.fromCommitMicros(new long[] {9}, new long[] {5_000}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handled event 9");
    }

    @Test
    void refusesASequenceOutsideItsRoom() {
        assertThatThrownBy(() -> new CommitTimes(2).set(2, 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sequence 2 outside 0..1");
    }
}
