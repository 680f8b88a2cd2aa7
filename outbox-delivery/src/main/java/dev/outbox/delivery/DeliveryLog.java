package dev.outbox.delivery;

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

    private DeliveryLog() {}

    /** Logs what a retry-or-fail transition did; {@code cause} is a safe code such as {@code timeout}. */
    public static void retryOutcome(Logger log, RetryOutcome o, String cause) {
        try (MDC.MDCCloseable e = MDC.putCloseable(MDC_EVENT_ID, o.eventId().toString());
                MDC.MDCCloseable d = MDC.putCloseable(MDC_DELIVERY_ID, o.deliveryId().toString())) {
            if (o.retried()) {
                log.warn("delivery {} of event {} ({}, queue {}): attempt {} failed ({}), retry scheduled at {}",
                        o.deliveryId(), o.eventId(), o.jobType(), LogText.of(o.queue()), o.attempts(), cause, o.availableAt());
            } else {
                log.error("delivery {} of event {} ({}, queue {}): failed for good after {} attempt(s), reason {} ({})",
                        o.deliveryId(), o.eventId(), o.jobType(), LogText.of(o.queue()), o.attempts(), o.failureReason(), cause);
            }
        }
    }
}
