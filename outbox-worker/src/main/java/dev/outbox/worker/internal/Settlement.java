package dev.outbox.worker.internal;

import com.rabbitmq.client.Channel;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one answer the broker gets for one message: an ack once the database holds the outcome, or a
 * reject without requeue for a message that cannot be handled. Never requeued: the outbox owns retries.
 * Settling twice is a no-op; acks on one channel are serialized (a channel is not safe for concurrent
 * use). A message the worker never handed to a handler is simply left unacknowledged: closing the
 * channel at shutdown gives it back to the broker, untouched, for another worker.
 */
final class Settlement {

    private static final Logger log = LoggerFactory.getLogger(Settlement.class);

    private final Channel channel;
    private final Object lock;
    private final long deliveryTag;
    private final AtomicBoolean settled = new AtomicBoolean();

    /** {@code lock} serializes the acknowledgements of one channel. */
    Settlement(Channel channel, Object lock, long deliveryTag) {
        this.channel = channel;
        this.lock = lock;
        this.deliveryTag = deliveryTag;
    }

    void ack() {
        if (settled.compareAndSet(false, true)) {
            try {
                synchronized (lock) {
                    channel.basicAck(deliveryTag, false);
                }
            } catch (Exception e) {
                // the channel closed: the broker gives the message back; its outcome is in the database already
                log.warn("could not acknowledge message {} ({})", deliveryTag, e.getClass().getName());
            }
        }
    }

    void reject() {
        if (settled.compareAndSet(false, true)) {
            try {
                synchronized (lock) {
                    channel.basicReject(deliveryTag, false);
                }
            } catch (Exception e) {
                log.warn("could not reject message {} ({})", deliveryTag, e.getClass().getName());
            }
        }
    }
}
