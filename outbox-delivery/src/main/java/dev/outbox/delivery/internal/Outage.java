package dev.outbox.delivery.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;

/**
 * One dependency (the database, the broker) while it cannot be reached, the one backoff policy of
 * relay and worker: logs the first failure of an outage once, not each retry, answers how long to
 * wait before the next try (100 ms doubling up to a cap, with jitter so that many processes do not
 * retry in step), and logs the recovery with the outage's length. Not thread-safe: one per waiting
 * thread (the relay's loop, one step of the worker).
 */
public final class Outage {

    public static final Duration FIRST_DELAY = Duration.ofMillis(100);

    private final Logger log;
    private final String what;
    private final long capMillis;
    private long startedNanos;
    private boolean on;
    private int retries;
    private long delayMillis;

    public Outage(Logger log, String what, Duration cap) {
        this.log = log;
        this.what = what;
        this.capMillis = Math.max(FIRST_DELAY.toMillis(), cap.toMillis());
    }

    /** True while an outage is on: the last try failed. */
    public boolean on() {
        return on;
    }

    /** Records a failed try ({@code reason}: one safe line); returns how long to wait before the next. */
    public Duration failed(String reason) {
        if (!on) {
            on = true;
            startedNanos = System.nanoTime();
            retries = 0;
            delayMillis = FIRST_DELAY.toMillis();
            log.warn("{}; retrying with backoff up to {} ms until the {} answers", reason, capMillis, what);
        } else {
            retries++;
            delayMillis = Math.min(capMillis, delayMillis * 2);
            log.debug("{} still unavailable after {} retries ({})", what, retries, reason);
        }
        long half = delayMillis / 2;
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(delayMillis - half + 1));
    }

    /** Records a try that went through; logs the end of an outage when one was on. */
    public void over() {
        if (on) {
            on = false;
            log.info(
                    "the {} answers again after an outage of {} ms ({} retries)",
                    what,
                    (System.nanoTime() - startedNanos) / 1_000_000,
                    retries);
        }
    }
}
