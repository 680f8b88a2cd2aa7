package dev.outbox.worker.internal;

import dev.outbox.delivery.internal.DatabaseOutages;
import dev.outbox.delivery.internal.Outage;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * Runs one database step of the worker (the start-up check, a delivery lookup, an outcome write)
 * until the database takes it (or, at start-up, the broker's connection until the broker accepts it):
 * while it fails with an outage ({@link DatabaseOutages#isTransient} for the database),
 * the step is tried again after 100 ms doubling up to {@link #CAP_MILLIS}, with jitter, by the relay's
 * policy ({@link Outage}): logged once at WARNING when it first fails and at INFO when it goes through. A fatal error is thrown at once.
 * When the worker is stopping the wait ends with {@link Stopped}: the caller leaves its messages
 * unacknowledged, so that the broker gives them to another worker.
 */
final class DatabaseRetry {

    static final long CAP_MILLIS = 5_000;
    private static final long SLICE_MILLIS = 50;

    /** The worker stopped while the database was unavailable; {@code getCause()} is the last failure. */
    static final class Stopped extends RuntimeException {
        Stopped(Throwable last) {
            super("the worker is stopping while a dependency is unavailable", last);
        }
    }

    private DatabaseRetry() {}

    /**
     * {@code step}'s result once the database takes it. {@code what} names the step in the log
     * ("read 12 deliveries"); {@code meanwhile} says what waits ("their messages stay unacknowledged").
     */
    static <T> T until(Logger log, String what, String meanwhile, BooleanSupplier stopping, Supplier<T> step) {
        return until(
                log,
                "database",
                DatabaseOutages::isTransient,
                DatabaseOutages::describe,
                what,
                meanwhile,
                stopping,
                step);
    }

    /**
     * The same for any dependency: {@code isOutage} tells the failures to ride out, {@code describe}
     * names one in a safe line.
     */
    static <T> T until(
            Logger log,
            String dependency,
            Predicate<Throwable> isOutage,
            Function<Throwable, String> describe,
            String what,
            String meanwhile,
            BooleanSupplier stopping,
            Supplier<T> step) {
        Outage outage = new Outage(log, dependency, Duration.ofMillis(CAP_MILLIS));
        while (true) {
            try {
                T result = step.get();
                outage.over();
                return result;
            } catch (RuntimeException e) {
                if (!isOutage.test(e)) {
                    throw e;
                }
                Duration wait = outage.failed("could not " + what + ": " + dependency + " unavailable ("
                        + describe.apply(e) + "); " + meanwhile);
                if (stopping.getAsBoolean() || !sleep(wait.toMillis(), stopping)) {
                    throw new Stopped(e);
                }
            }
        }
    }

    /** Sleeps {@code millis} in slices, false as soon as the worker is stopping or the thread is interrupted. */
    private static boolean sleep(long millis, BooleanSupplier stopping) {
        long until = System.nanoTime() + millis * 1_000_000;
        try {
            for (long left = millis; left > 0; left = (until - System.nanoTime()) / 1_000_000) {
                Thread.sleep(Math.min(SLICE_MILLIS, left));
                if (stopping.getAsBoolean()) {
                    return false;
                }
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
