package dev.outbox.bench;

import java.util.ArrayList;
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
            throw new IllegalArgumentException("stages of " + commitToRouted.length + ", " + routedToClaimed.length
                    + " and " + claimedToHandler.length + " events");
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
        List<long[]> routed = Stats.sortedSlices(toRouted, perSecond);
        List<long[]> claimed = Stats.sortedSlices(toClaimed, perSecond);
        List<long[]> handler = Stats.sortedSlices(toHandler, perSecond);
        List<String> lines = new ArrayList<>();
        for (int second = 0; second < routed.size(); second++) {
            lines.add(name + " stages second " + second + ": commit→T1 " + p50p99(routed.get(second)) + " | T1→T2 "
                    + p50p99(claimed.get(second)) + " | T2→handler " + p50p99(handler.get(second)) + " ms");
        }
        return lines;
    }

    private static String p50p99(long[] sortedMicros) {
        return String.format(
                "p50 %.1f p99 %.1f",
                Stats.percentile(sortedMicros, 50) / 1000.0, Stats.percentile(sortedMicros, 99) / 1000.0);
    }
}
