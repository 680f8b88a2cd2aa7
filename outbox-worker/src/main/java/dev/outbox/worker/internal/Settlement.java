package dev.outbox.worker.internal;

import dev.outbox.worker.WorkerLoggers;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one answer the broker gets for one message: an ack once the database holds the outcome, or a
 * reject without requeue for a message that cannot be handled. Never requeued: the outbox owns retries.
 * Settling twice is a no-op; acks on one channel go through its {@link ChannelAcks}. A message the worker
 * never handed to a handler is simply left unacknowledged: closing the channel at shutdown gives it back
 * to the broker, untouched, for another worker.
 */
final class Settlement {

    private static final Logger log = LoggerFactory.getLogger(WorkerLoggers.BROKER);

    private final ChannelAcks acks;
    private final long deliveryTag;
    private final AtomicBoolean settled = new AtomicBoolean();

    Settlement(ChannelAcks acks, long deliveryTag) {
        this.acks = acks;
        this.deliveryTag = deliveryTag;
    }

    void ack() {
        if (settled.compareAndSet(false, true)) {
            try {
                acks.ack(deliveryTag);
            } catch (Exception e) {
                // the channel closed: the broker gives the message back; its outcome is in the database already
                log.warn(
                        "could not acknowledge message {} ({})",
                        deliveryTag,
                        e.getClass().getName());
            }
        }
    }

    void reject() {
        if (settled.compareAndSet(false, true)) {
            try {
                acks.reject(deliveryTag);
            } catch (Exception e) {
                log.warn(
                        "could not reject message {} ({})",
                        deliveryTag,
                        e.getClass().getName());
            }
        }
    }

    /** Acknowledges a group whose outcomes are committed, with one multiple ack per channel where the order allows. */
    static void ackAll(List<Settlement> group) {
        IdentityHashMap<ChannelAcks, List<Long>> byChannel = new IdentityHashMap<>();
        for (Settlement s : group) {
            if (s.settled.compareAndSet(false, true)) {
                byChannel.computeIfAbsent(s.acks, k -> new ArrayList<>()).add(s.deliveryTag);
            }
        }
        byChannel.forEach((acks, tags) -> {
            try {
                acks.ackAll(tags);
            } catch (Exception e) {
                log.warn(
                        "could not acknowledge {} messages ({})",
                        tags.size(),
                        e.getClass().getName());
            }
        });
    }
}
