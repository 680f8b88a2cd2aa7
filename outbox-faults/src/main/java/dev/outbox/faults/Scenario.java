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
 */
public record Scenario(int events, int producers, int relays, int workers, int faultSeconds, int killEverySeconds,
        int brokerStops, int brokerStopSeconds, int pgRestarts, double failShare, List<Integer> retryDelays,
        List<Integer> doomedRetryDelays, int deliveryTimeoutSeconds, int drainTimeoutSeconds, long seed,
        int slowHandlerMillis, int cpuHogs, int recoverySeconds, int maxQueueDepth, int dispatchBatchSize) {

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
        if (!(failShare >= 0 && failShare <= 1)) {
            throw new IllegalArgumentException("failShare must be from 0 to 1, got " + failShare);
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
        return new Scenario(3_000, 2, 2, 2, 20, 7, 1, 5, 1, 0.05, List.of(1, 2, 5, 10, 10), List.of(1, 1), 10, 90, 12,
                0, 0, 0, DEFAULT_MAX_QUEUE_DEPTH, DEFAULT_DISPATCH_BATCH_SIZE);
    }

    /** The documented full run: 100,000 events, five minutes of faults. */
    public static Scenario full() {
        return new Scenario(100_000, 4, 4, 3, 300, 5, 2, 5, 2, 0, List.of(1, 2, 5, 10, 10), List.of(1, 1), 15, 300, 12,
                0, 0, 0, DEFAULT_MAX_QUEUE_DEPTH, DEFAULT_DISPATCH_BATCH_SIZE);
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
        return new Scenario(6_000, 2, 2, 2, 40, 0, 1, 5, 0, 0, List.of(1), List.of(1, 1), 10, 120, 12,
                400, 1, 40, 400, 100);
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
        if (failShare <= 0) {
            return false;
        }
        long every = Math.max(1, Math.round(1 / failShare));
        return sequence % every == every - 1;
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
