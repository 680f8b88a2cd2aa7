package dev.outbox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The producers' transactions (the {@code record} and its commit) by the second of the run they
 * began in, for {@code --timeline}: S4's commit→handler start leaves out all of a transaction but its
 * commit ({@link CommitTimes}), its made→handler start includes all of it, so a slow transaction (a
 * producer still compiling) shows here, and in the second figure.
 */
final class TransactionTimeline {

    private final Map<Integer, ConcurrentLinkedQueue<Long>> bySecond = new ConcurrentHashMap<>();

    /** One transaction that began {@code startNanos} after the run's start and took {@code durationNanos}. */
    void add(long startNanos, long durationNanos) {
        bySecond.computeIfAbsent((int) (startNanos / 1_000_000_000L), s -> new ConcurrentLinkedQueue<>())
                .add(durationNanos);
    }

    /** A line a second: "{@code name} producers second N: n transactions, p50 … p99 … max … ms". */
    List<String> lines(String name) {
        List<String> lines = new ArrayList<>();
        new TreeMap<>(bySecond).forEach((second, durations) -> {
            long[] sorted =
                    Stats.sorted(durations.stream().mapToLong(Long::longValue).toArray());
            lines.add(name + " producers second " + second + ": " + sorted.length + " transactions, record+commit "
                    + Stats.tail(sorted, 1e6));
        });
        return lines;
    }
}
