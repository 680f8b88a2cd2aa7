package dev.outbox.relay.internal;

import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.internal.Claimed;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * The relay's backpressure: how many messages wait in each job queue, and which queues are full.
 * A queue is <em>held</em> while its depth is at least {@code maxDepth}: T2 claims none of its
 * deliveries (they stay pending in the database, in order) until it falls below the bound. The
 * depth is the broker's count of ready messages (a passive declaration, {@link Reader}) plus what
 * this relay published since; read every {@link #REFRESH_NANOS}, and every {@link #RECHECK_NANOS}
 * while the queue looks full. Relays do not see each other's publishes, so the depth stays below
 * {@code relays × (maxDepth + batch)}. Used by the engine's thread.
 */
final class QueueDepths {

    /** How old a reading may be before the next claim reads the depth again. */
    static final long REFRESH_NANOS = 250_000_000L;
    /** How often a queue that looks full is read again. */
    static final long RECHECK_NANOS = 20_000_000L;

    /** Reads the number of ready messages in a queue; empty when it cannot be read (the queue does not exist, the broker is gone). */
    @FunctionalInterface
    interface Reader {
        OptionalLong readyMessages(String queue);
    }

    /** Told when a queue becomes held or is let go. */
    interface Listener {
        void held(String queue, long depth, int maxDepth);

        void released(String queue, long depth, long heldNanos);
    }

    private final int maxDepth;
    private final Set<String> queues;
    private final LongSupplier nanoTime;
    private final Listener listener;
    private final Map<String, Long> depths = new HashMap<>();
    private final Map<String, Long> readAt = new HashMap<>();
    private final Map<String, Long> heldSince = new HashMap<>();
    /** Messages this relay published whose confirms it has not settled yet: the broker may not count them in a reading. */
    private final Map<String, Long> unsettled = new HashMap<>();

    /** {@code maxDepth} 0: no bound, nothing is ever held and nothing read. */
    QueueDepths(int maxDepth, Set<String> jobQueues, LongSupplier nanoTime, Listener listener) {
        this.maxDepth = maxDepth;
        this.queues = Collections.unmodifiableSet(new TreeSet<>(jobQueues));
        this.nanoTime = nanoTime;
        this.listener = listener;
    }

    boolean bounded() {
        return maxDepth > 0 && !queues.isEmpty();
    }

    /** Reads the depths that are due (see the class comment), then says which queues are held now. */
    Set<String> refresh(Reader reader) {
        if (!bounded()) {
            return Set.of();
        }
        long now = nanoTime.getAsLong();
        for (String queue : queues) {
            Long at = readAt.get(queue);
            long age = at == null ? Long.MAX_VALUE : now - at;
            if (age >= REFRESH_NANOS || (full(queue) && age >= RECHECK_NANOS)) {
                OptionalLong read = reader.readyMessages(queue);
                readAt.put(queue, now);
                // unreadable: counted as empty, the broker's refusal of the publishes is the answer then;
                // published but not confirmed yet: perhaps not in the broker's count, so counted on top of it
                depths.put(queue, read.orElse(0) + unsettled.getOrDefault(queue, 0L));
            }
        }
        return held(now);
    }

    /** What this relay just published adds to the depth of its queue until the next reading. */
    void published(List<Claimed> claimed) {
        if (!bounded()) {
            return;
        }
        for (Claimed d : claimed) {
            if (d.kind() == RouteKind.JOB) {
                depths.merge(d.queue(), 1L, Long::sum);
                unsettled.merge(d.queue(), 1L, Long::sum);
            }
        }
    }

    /** The publishes of {@code claimed} are settled (confirmed, refused or lost): from now on a reading counts them, or they are gone. */
    void settled(List<Claimed> claimed) {
        if (!bounded()) {
            return;
        }
        for (Claimed d : claimed) {
            if (d.kind() == RouteKind.JOB) {
                unsettled.computeIfPresent(d.queue(), (q, n) -> n > 1 ? n - 1 : null);
            }
        }
    }

    /** The last known depth of a job queue (its reading plus what was published since); 0 when never read. */
    long depth(String queue) {
        return depths.getOrDefault(queue, 0L);
    }

    /** The queues held now, without reading anything. */
    Set<String> held() {
        return bounded() ? held(nanoTime.getAsLong()) : Set.of();
    }

    int maxDepth() {
        return maxDepth;
    }

    private boolean full(String queue) {
        return depth(queue) >= maxDepth;
    }

    private Set<String> held(long now) {
        Set<String> held = new LinkedHashSet<>();
        for (String queue : queues) {
            boolean full = full(queue);
            Long since = heldSince.get(queue);
            if (full) {
                held.add(queue);
                if (since == null) {
                    heldSince.put(queue, now);
                    listener.held(queue, depth(queue), maxDepth);
                }
            } else if (since != null) {
                heldSince.remove(queue);
                listener.released(queue, depth(queue), now - since);
            }
        }
        return held;
    }
}
