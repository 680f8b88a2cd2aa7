package dev.outbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.bench.PgStatements.Counters;
import dev.outbox.bench.PgStatements.Snapshot;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PgStatementsTest {

    @Test
    void eachWindowGivesTheCallsOfTheWindowAndWhatEachCostOnAverage() {
        List<Snapshot> snapshots = List.of(
                new Snapshot(0, Map.of()),
                new Snapshot(10, Map.of(7L, new Counters(10, 5.0, 100, 10))),
                new Snapshot(20, Map.of(7L, new Counters(30, 45.0, 700, 50), 8L, new Counters(1, 1.0, 1, 1))),
                new Snapshot(30, Map.of(7L, new Counters(30, 45.0, 700, 50))),
                new Snapshot(40, Map.of(7L, new Counters(34, 49.0, 740, 54))));

        assertThat(PgStatements.windows(snapshots, 7L))
                .containsExactly(
                        "  0– 10 s:      10 calls,   0.500 ms,     1.0 rows,     10.0 hits",
                        " 10– 20 s:      20 calls,   2.000 ms,     2.0 rows,     30.0 hits",
                        " 30– 40 s:       4 calls,   1.000 ms,     1.0 rows,     10.0 hits");
    }

    @Test
    void aWindowWhoseSnapshotFailedIsCountedWithTheNextAndLabelledWithBoth() {
        List<Snapshot> snapshots = List.of(
                new Snapshot(0, Map.of()),
                new Snapshot(10, Map.of(7L, new Counters(10, 5.0, 100, 10))),
                new Snapshot(30, Map.of(7L, new Counters(50, 85.0, 500, 90))));

        assertThat(PgStatements.windows(snapshots, 7L))
                .containsExactly(
                        "  0– 10 s:      10 calls,   0.500 ms,     1.0 rows,     10.0 hits",
                        " 10– 30 s:      40 calls,   2.000 ms,     2.0 rows,     10.0 hits");
    }

    @Test
    void aStatementNeverCalledHasNoWindows() {
        assertThat(PgStatements.windows(
                        List.of(new Snapshot(0, Map.of()), new Snapshot(10, Map.of(7L, new Counters(3, 1.0, 1, 1)))),
                        9L))
                .isEmpty();
    }
}
