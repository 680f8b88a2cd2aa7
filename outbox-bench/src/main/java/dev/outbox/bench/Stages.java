package dev.outbox.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * S4's commit→handler start cut where the relay's transitions leave their times, second by second,
 * for {@code --timeline}: from the producer's commit to T1's time (the delivery's {@code created_at}:
 * the relay's wake-up and its read of the new events), from T1's to T2's ({@code dispatched_at}: T1's
 * statement and commit, then the wait for the claim), and from T2's to the handler's start (T2's
 * statement and commit, the publish, the broker, the worker's read and lookup). All three are wall
 * clocks of processes on one machine.
 */
final class Stages {

    private final long[] toRouted;
    private final long[] toClaimed;
    private final long[] toHandler;

    /** Each handled event's three stages in microseconds, in the order the handlers started. */
    Stages(long[] commitToRouted, long[] routedToClaimed, long[] claimedToHandler) {
        if (commitToRouted.length != routedToClaimed.length || routedToClaimed.length != claimedToHandler.length) {
            throw new IllegalArgumentException("stages of " + commitToRouted.length + ", " + routedToClaimed.length + " and "
                    + claimedToHandler.length + " events");
        }
        this.toRouted = commitToRouted;
        this.toClaimed = routedToClaimed;
        this.toHandler = claimedToHandler;
    }

    /**
     * A line for each {@code perSecond} handled events (a second at the offered rate):
     * "{@code name} stages second N: commit→T1 p50 … p99 … | T1→T2 … | T2→handler … ms".
     */
    List<String> lines(String name, int perSecond) {
        List<String> lines = new ArrayList<>();
        for (int from = 0; from < toRouted.length; from += perSecond) {
            int to = Math.min(toRouted.length, from + perSecond);
            lines.add(name + " stages second " + from / perSecond + ": commit→T1 " + p50p99(toRouted, from, to) + " | T1→T2 "
                    + p50p99(toClaimed, from, to) + " | T2→handler " + p50p99(toHandler, from, to) + " ms");
        }
        return lines;
    }

    private static String p50p99(long[] micros, int from, int to) {
        long[] sorted = Stats.sorted(Arrays.copyOfRange(micros, from, to));
        return String.format("p50 %.1f p99 %.1f", Stats.percentile(sorted, 50) / 1000.0, Stats.percentile(sorted, 99) / 1000.0);
    }
}
