package dev.outbox.faults;

import java.util.List;

/**
 * What one fault run does.
 *
 * @param events events recorded, one per transaction
 * @param producers producer threads recording them, paced so that recording spans the fault period
 * @param relays relay processes ({@code relay --loop --sleep=1})
 * @param workers worker processes
 * @param faultSeconds how long faults are injected at least; kills go on until the producers are done
 * @param killEverySeconds about how often a random relay or worker is killed with -9 (0: never)
 * @param brokerStops broker outages during the fault period
 * @param brokerStopSeconds how long each broker outage lasts
 * @param pgRestarts immediate PostgreSQL restarts during the fault period
 * @param failShare share of events (0..1) whose handler fails with a retryable error on every attempt
 * @param retryDelays retry delays of the ordinary events' route
 * @param doomedRetryDelays retry delays of the always-failing events' route (short, so retries run out)
 * @param deliveryTimeoutSeconds the routes' delivery timeout
 * @param drainTimeoutSeconds how long to wait, after the faults, for every delivery to end
 * @param seed seed of the fault schedule's randomness
 * @param slowHandlerMillis how long each handler call takes during the fault period (0: as fast as it
 *     can); afterwards the handlers are fast again: consumers slower than the producers, then recovery
 * @param cpuHogs busy-looping processes run beside the suite from the start of the faults until the
 *     drain is over (a busy machine)
 * @param recoverySeconds how long the producers go on recording, at the same rate, after the fault
 *     period (0: they stop with it); the goodput after the last fault is measured over this time
 * @param maxQueueDepth the relays' bound of ready messages per job queue ({@code OUTBOX_MAX_QUEUE_DEPTH})
 * @param dispatchBatchSize the relays' dispatch batch ({@code OUTBOX_DISPATCH_BATCH_SIZE})
 * @param keys ordering keys (0: none, the routes are unordered): the routes are ordered (policy
 *     {@code block}) and the events get the keys spread at random, the same for the same seed
 * @param flakyShare share of ordinary events (0..1) whose handler fails with a retryable error on
 *     its first attempt, then succeeds
 * @param terminalShare share of ordinary events (0..1) whose handler fails for good ({@code job_failed})
 *     until the suite, as an operator, heals them; on an ordered route each blocks its key until it
 *     is skipped or healed and requeued ({@link OrderedKeys})
 */
public record Scenario(
        int events,
        int producers,
        int relays,
        int workers,
        int faultSeconds,
        int killEverySeconds,
        int brokerStops,
        int brokerStopSeconds,
        int pgRestarts,
        double failShare,
        List<Integer> retryDelays,
        List<Integer> doomedRetryDelays,
        int deliveryTimeoutSeconds,
        int drainTimeoutSeconds,
        long seed,
        int slowHandlerMillis,
        int cpuHogs,
        int recoverySeconds,
        int maxQueueDepth,
        int dispatchBatchSize,
        int keys,
        double flakyShare,
        double terminalShare) {

    /** The relays' default bound and batch, as a relay service started with neither variable has them. */
    static final int DEFAULT_MAX_QUEUE_DEPTH = 1_000;

    static final int DEFAULT_DISPATCH_BATCH_SIZE = 500;

    public Scenario {
        positive("events", events);
        positive("producers", producers);
        positive("relays", relays);
        positive("workers", workers);
        positive("faultSeconds", faultSeconds);
        notNegative("killEverySeconds", killEverySeconds);
        notNegative("brokerStops", brokerStops);
        positive("brokerStopSeconds", brokerStopSeconds);
        notNegative("pgRestarts", pgRestarts);
        positive("deliveryTimeoutSeconds", deliveryTimeoutSeconds);
        positive("drainTimeoutSeconds", drainTimeoutSeconds);
        notNegative("slowHandlerMillis", slowHandlerMillis);
        notNegative("cpuHogs", cpuHogs);
        notNegative("recoverySeconds", recoverySeconds);
        notNegative("maxQueueDepth", maxQueueDepth);
        positive("dispatchBatchSize", dispatchBatchSize);
        if (slowHandlerMillis >= deliveryTimeoutSeconds * 1000L) {
            throw new IllegalArgumentException("slowHandlerMillis must be shorter than the delivery timeout ("
                    + deliveryTimeoutSeconds + " s), got " + slowHandlerMillis);
        }
        notNegative("keys", keys);
        share("failShare", failShare);
        share("flakyShare", flakyShare);
        share("terminalShare", terminalShare);
        if (failShare + flakyShare + terminalShare > 1) {
            throw new IllegalArgumentException("failShare + flakyShare + terminalShare must be at most 1, got "
                    + (failShare + flakyShare + terminalShare));
        }
        retryDelays = List.copyOf(retryDelays);
        doomedRetryDelays = List.copyOf(doomedRetryDelays);
        for (int d : retryDelays) {
            positive("retryDelays", d);
        }
        for (int d : doomedRetryDelays) {
            positive("doomedRetryDelays", d);
        }
    }

    /** The version of the README's test command: about a minute on two cores. */
    public static Scenario small() {
        return new Scenario(
                3_000,
                2,
                2,
                2,
                20,
                7,
                1,
                5,
                1,
                0.05,
                List.of(1, 2, 5, 10, 10),
                List.of(1, 1),
                10,
                90,
                12,
                0,
                0,
                0,
                DEFAULT_MAX_QUEUE_DEPTH,
                DEFAULT_DISPATCH_BATCH_SIZE,
                0,
                0,
                0);
    }

    /** The documented full run: 100,000 events, five minutes of faults. */
    public static Scenario full() {
        return new Scenario(
                100_000,
                4,
                4,
                3,
                300,
                5,
                2,
                5,
                2,
                0,
                List.of(1, 2, 5, 10, 10),
                List.of(1, 1),
                15,
                300,
                12,
                0,
                0,
                0,
                DEFAULT_MAX_QUEUE_DEPTH,
                DEFAULT_DISPATCH_BATCH_SIZE,
                0,
                0,
                0);
    }

    /**
     * Ordered routes (issue 39): 10,000 events over 100 keys through 4 relays and 2 workers, 5 % of
     * them failing once (a retry keeps its key waiting), 0.3 % failing for good (each blocks its key);
     * a kill -9 every ~5 s, a broker stop and an immediate PostgreSQL restart. After the drain the
     * suite skips half the blocked heads and heals and requeues the others ({@link OrderedKeys}).
     */
    public static Scenario ordered() {
        return new Scenario(
                10_000,
                4,
                4,
                2,
                60,
                5,
                1,
                5,
                1,
                0,
                List.of(1, 2, 5, 10, 10),
                List.of(1, 1),
                15,
                300,
                12,
                0,
                0,
                0,
                DEFAULT_MAX_QUEUE_DEPTH,
                DEFAULT_DISPATCH_BATCH_SIZE,
                100,
                0.05,
                0.003);
    }

    /**
     * {@link #ordered()} in small numbers, for the test suite: 1,000 events over 20 keys, two relays
     * and two workers, a kill every ~3 s for 10 s, no outage (FaultInjectionIT and OverloadIT have
     * those; the full ordered run has both): the suite's time is what it costs.
     */
    public static Scenario orderedSmall() {
        return new Scenario(
                1_000,
                2,
                2,
                2,
                10,
                3,
                0,
                5,
                0,
                0,
                List.of(1, 2, 5, 10, 10),
                List.of(1, 1),
                10,
                90,
                12,
                0,
                0,
                0,
                DEFAULT_MAX_QUEUE_DEPTH,
                DEFAULT_DISPATCH_BATCH_SIZE,
                20,
                0.05,
                0.01);
    }

    /**
     * Overload (issue 37): for 40 s the handlers take 400 ms each, so two workers of 4 threads finish
     * about 20 jobs a second while the producers offer 75; a 5 s broker stop halfway; then 40 s of
     * recovery at the same offered rate with fast handlers; a CPU hog beside it all. Only 2 attempts
     * (one retry after 1 s), so that a build whose timeouts burn attempts fails work that never ran. The
     * delivery timeout, 10 s, is shorter than a message waits in a worker that has looked it up (128
     * messages ahead of 4 handler threads at 400 ms: about 13 s), so the scenario also proves that such a
     * wait costs no attempt (the worker renews the start of what waits for a handler thread).
     */
    public static Scenario overload() {
        return new Scenario(
                6_000,
                2,
                2,
                2,
                40,
                0,
                1,
                5,
                0,
                0,
                List.of(1),
                List.of(1, 1),
                10,
                120,
                12,
                400,
                1,
                40,
                400,
                100,
                0,
                0,
                0);
    }

    /** Whether this is an overload run: slow handlers or a recovery period. */
    boolean overloaded() {
        return slowHandlerMillis > 0 || recoverySeconds > 0;
    }

    /** The rate the producers offer: every event spread over the fault period (90 % of it) and the recovery. */
    double offeredPerSecond() {
        return recoverySeconds > 0 ? events / (double) (faultSeconds + recoverySeconds) : events / (faultSeconds * 0.9);
    }

    /** Whether the event with this sequence number is one whose handler always fails. */
    boolean doomed(long sequence) {
        return every(sequence, failShare, 1);
    }

    /** Whether the ordinary event with this sequence number fails on its first attempt only. */
    boolean flaky(long sequence) {
        return !doomed(sequence) && every(sequence, flakyShare, 2);
    }

    /** Whether the ordinary event with this sequence number fails for good until healed. */
    boolean terminal(long sequence) {
        return !doomed(sequence) && !flaky(sequence) && every(sequence, terminalShare, 3);
    }

    /** Whether the routes are ordered. */
    boolean orderedRoutes() {
        return keys > 0;
    }

    /** The ordering key of the event with this sequence number, spread over {@link #keys} by a fixed mix of it and the seed. */
    String key(long sequence) {
        long z = (sequence + seed) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
        return "key-" + Math.floorMod(z ^ (z >>> 29), keys);
    }

    /** One sequence in every 1/share, offset so that the kinds of failure fall on different events. */
    private static boolean every(long sequence, double share, int offset) {
        if (share <= 0) {
            return false;
        }
        long every = Math.max(1, Math.round(1 / share));
        return (sequence + offset) % every == 0;
    }

    private static void share(String name, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(name + " must be from 0 to 1, got " + value);
        }
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    private static void notNegative(String name, int value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative, got " + value);
        }
    }
}
