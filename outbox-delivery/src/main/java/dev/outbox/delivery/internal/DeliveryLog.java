package dev.outbox.delivery.internal;

import dev.outbox.delivery.LogText;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * The log records of the retry-or-fail transition, written once for relay and worker: WARNING for a
 * scheduled retry, ERROR for a final failure. MDC carries {@code outboxEventId} and
 * {@code outboxDeliveryId}; nothing of a payload or an external message is logged, and the queue name
 * (a row another program may have written) goes through {@link LogText}.
 */
public final class DeliveryLog {

    public static final String MDC_EVENT_ID = "outboxEventId";
    public static final String MDC_DELIVERY_ID = "outboxDeliveryId";
    private static final String RETRY_SCHEDULED =
            "delivery {} of event {} ({}, queue {}): attempt {} failed ({}), retry scheduled at {}";

    private DeliveryLog() {}

    /**
     * Logs what a retry-or-fail transition did under load: a scheduled retry is a WARNING for the
     * first of its queue and cause in the digest's interval, then counted in {@code digest} (each at
     * DEBUG); a final failure is
     * one ERROR as in {@link #retryOutcome(Logger, RetryOutcome, String)} while the digest allows it,
     * else counted.
     */
    public static void retryOutcome(Logger log, LogDigest digest, RetryOutcome o, String cause) {
        if (o.retried()) {
            boolean first = digest.warn(
                    "attempt failed (" + cause + "), retry scheduled",
                    o.queue(),
                    "delivery " + o.deliveryId() + " attempt " + o.attempts());
            if (first || log.isDebugEnabled()) {
                retryOutcome(log, o, cause, !first);
            }
        } else if (digest.error("delivery " + o.deliveryId() + " reason " + o.failureReason())) {
            retryOutcome(log, o, cause);
        }
    }

    /** Logs what a retry-or-fail transition did; {@code cause} is a safe code such as {@code timeout}. */
    public static void retryOutcome(Logger log, RetryOutcome o, String cause) {
        retryOutcome(log, o, cause, false);
    }

    @SuppressWarnings("try") // the MDC entries are held for the log calls and removed by close(), never read
    private static void retryOutcome(Logger log, RetryOutcome o, String cause, boolean debug) {
        try (MDC.MDCCloseable e = MDC.putCloseable(MDC_EVENT_ID, o.eventId().toString());
                MDC.MDCCloseable d =
                        MDC.putCloseable(MDC_DELIVERY_ID, o.deliveryId().toString())) {
            if (o.retried()) {
                Object[] args = {
                    o.deliveryId(),
                    o.eventId(),
                    o.jobType(),
                    LogText.of(o.queue()),
                    o.attempts(),
                    cause,
                    o.availableAt()
                };
                if (debug) {
                    log.debug(RETRY_SCHEDULED, args);
                } else {
                    log.warn(RETRY_SCHEDULED, args);
                }
            } else {
                log.error(
                        "delivery {} of event {} ({}, queue {}): failed for good after {} attempt(s), reason {} ({})",
                        o.deliveryId(),
                        o.eventId(),
                        o.jobType(),
                        LogText.of(o.queue()),
                        o.attempts(),
                        o.failureReason(),
                        cause);
            }
        }
    }
}
