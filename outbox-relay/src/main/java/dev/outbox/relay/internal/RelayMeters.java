package dev.outbox.relay.internal;

import dev.outbox.delivery.internal.Claimed;
import dev.outbox.delivery.internal.RelayTransitions;
import dev.outbox.delivery.internal.RetryOutcome;
import java.util.List;
import java.util.UUID;

/**
 * What the engine tells its meters, one call per fact. {@link #NONE} (every method does nothing)
 * unless a {@code MeterRegistry} is given: then {@code MicrometerRelayMeters}, the one class that
 * names a Micrometer type, so that the relay runs with Micrometer absent from the class path.
 */
public interface RelayMeters extends AutoCloseable {

    /** No meters: no registry was given. */
    RelayMeters NONE = new RelayMeters() {};

    /** The outcomes of {@link #passEnded}: a bounded set of tag values. */
    String IDLE = "idle";

    String BUSY = "busy";
    String DATABASE_UNAVAILABLE = "database_unavailable";
    String BROKER_UNAVAILABLE = "broker_unavailable";
    String FAILED = "failed";

    /** A pass starts; what it returns goes to {@link #passEnded}. */
    default long passStarted() {
        return 0;
    }

    /** The pass begun at {@code started} ended with {@code outcome} (one of the constants above). */
    default void passEnded(long started, String outcome) {}

    /** T1 committed: {@code events} events routed. */
    default void routed(int events) {}

    /** Deliveries of ordered routes created for events without an ordering key: they go unordered. */
    default void routedUnkeyed(int deliveries) {}

    /** T2 committed: these deliveries claimed, about to be published. */
    default void dispatched(List<Claimed> claimed) {}

    /** The broker confirmed {@code delivery}, {@code latencyNanos} after its publish (negative: unknown). */
    default void confirmed(Claimed delivery, long latencyNanos) {}

    /** The broker did not take {@code delivery}; {@code cause} is one of {@code Published}'s safe codes. */
    default void refused(Claimed delivery, String cause) {}

    /** Of the confirmed publish-route deliveries {@code confirmed}, those whose ids are in {@code completed} were completed (committed). */
    default void completed(List<Claimed> confirmed, List<UUID> completed) {}

    /** T4 committed: these overdue dispatches went through retry-or-fail. */
    default void timedOut(List<RetryOutcome> outcomes) {}

    /** T4u committed: these dispatches timed out before any worker took them and were sent back to pending uncounted. */
    default void timedOutUnstarted(List<RelayTransitions.UnstartedTimeout> unstarted) {}

    /** The depth the relay knows of a job queue (the broker's ready messages when last read, plus what it published since) and its bound. */
    default void queueDepth(String queue, long depth, int maxDepth) {}

    /** Whether the relay holds back the dispatches to {@code queue} (its depth reached the bound). */
    default void queueHeld(String queue, boolean held) {}

    /** Stops reading the gauges. */
    @Override
    default void close() {}
}
