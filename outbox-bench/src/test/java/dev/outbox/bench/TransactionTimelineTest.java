package dev.outbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TransactionTimelineTest {

    @Test
    void groupsTransactionsByTheSecondTheyBeganIn() {
        TransactionTimeline timeline = new TransactionTimeline();
        timeline.add(100_000_000L, 2_000_000L); // second 0: 2 ms
        timeline.add(999_000_000L, 160_000_000L); // second 0: 160 ms
        timeline.add(2_500_000_000L, 1_500_000L); // second 2: 1.5 ms

        assertThat(timeline.lines("S4"))
                .containsExactly(
                        "S4 producers second 0: 2 transactions, record+commit p50 2.0 p99 160.0 max 160.0 ms",
                        "S4 producers second 2: 1 transactions, record+commit p50 1.5 p99 1.5 max 1.5 ms");
    }

    @Test
    void hasNoLinesWithoutTransactions() {
        assertThat(new TransactionTimeline().lines("S4")).isEmpty();
    }
}
