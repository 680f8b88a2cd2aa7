package dev.outbox.bench;

import java.util.Arrays;

/**
 * How long after it was made each event's transaction came to its commit, by the event's sequence,
 * so that S4 measures commit→handler start as its target names it. A producer takes the wall clock
 * once {@code record} has returned inside its transaction, just before the transaction commits: the
 * commit's own round trip stays inside the figure; the producer's {@code record} and its wait for a
 * pooled connection do not. The worker measures from when the event was made
 * ({@link BenchEvent#recordedAtMicros}, before its transaction began), and S4 reports that too.
 */
final class CommitTimes {

    private static final long UNSET = -1;

    private final long[] madeToCommitMicros;

    /** Room for the sequences {@code 0 … capacity - 1}. */
    CommitTimes(int capacity) {
        madeToCommitMicros = new long[capacity];
        Arrays.fill(madeToCommitMicros, UNSET);
    }

    /**
     * The event with {@code sequence}, made at {@code madeMicros}, began its commit at
     * {@code commitMicros} (both wall clock). Each sequence is set by the one producer thread that made
     * it; the producers' end publishes the values to the thread that reads them.
     */
    void set(long sequence, long madeMicros, long commitMicros) {
        if (sequence < 0 || sequence >= madeToCommitMicros.length) {
            throw new IllegalArgumentException(
                    "sequence " + sequence + " outside 0.." + (madeToCommitMicros.length - 1));
        }
        madeToCommitMicros[(int) sequence] = Math.max(0, commitMicros - madeMicros);
    }

    /** How long after it was made the event with {@code sequence} came to its commit, or -1 if it has no commit time. */
    private long madeToCommitMicros(long sequence) {
        return sequence >= 0 && sequence < madeToCommitMicros.length ? madeToCommitMicros[(int) sequence] : UNSET;
    }

    /**
     * Each handled event's latency from its commit, in the order given:
     * {@code fromMadeMicros[i]} less the time event {@code sequences[i]} took from made to commit.
     *
     * @throws IllegalStateException when a handled event has no commit time (these producers did not
     *     make it, and the figure would be wrong)
     */
    long[] fromCommitMicros(long[] sequences, long[] fromMadeMicros) {
        if (sequences.length != fromMadeMicros.length) {
            throw new IllegalArgumentException(
                    sequences.length + " sequences but " + fromMadeMicros.length + " latencies");
        }
        long[] latencies = new long[sequences.length];
        for (int i = 0; i < sequences.length; i++) {
            long sequence = sequences[i];
            long toCommit = madeToCommitMicros(sequence);
            if (toCommit == UNSET) {
                throw new IllegalStateException("handled event " + sequence + " has no commit time");
            }
            latencies[i] = fromMadeMicros[i] - toCommit;
        }
        return latencies;
    }
}
