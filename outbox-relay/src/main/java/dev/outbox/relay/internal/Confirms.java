package dev.outbox.relay.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.delivery.internal.DeliveryMessage;
import java.util.Map;
import java.util.NavigableMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The publisher confirms of one channel: every publish is tracked by its sequence number until the
 * broker acks or nacks it. A {@code basic.return} (sent before the ack or nack of the same message)
 * marks the message as failed whatever follows; a channel shutdown fails everything outstanding. At
 * most {@code window} messages are in flight.
 */
final class Confirms implements ConfirmListener, ReturnListener, ShutdownListener {

    private final NavigableMap<Long, Published> outstanding = new ConcurrentSkipListMap<>();
    private final Map<UUID, Published> byDispatchId = new ConcurrentHashMap<>();
    private final Semaphore window;
    private volatile boolean closed;

    Confirms(int window) {
        this.window = new Semaphore(window);
    }

    /** Waits for room in the window; false when none came within {@code timeoutMillis} or the channel closed. */
    boolean reserve(long timeoutMillis) throws InterruptedException {
        return !closed && window.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    /** Gives back a reservation that did not lead to a publish. */
    void unreserve() {
        window.release();
    }

    /** Tracks a message about to be published with sequence number {@code seq}. */
    void track(long seq, Published published) {
        published.trackedBy(this, seq);
        outstanding.put(seq, published);
        byDispatchId.put(published.dispatch().dispatchId(), published);
        if (closed) {
            fail(seq, Published.NOT_SENT); // about to be published on a closed channel: it never leaves
        }
    }

    /** Forgets a message whose confirm did not come in time; a late confirm then finds nothing. */
    void abandon(long seq) {
        fail(seq, Published.CONFIRM_TIMEOUT);
    }

    /** Fails a tracked message whose publish threw. */
    void failed(long seq) {
        fail(seq, Published.PUBLISH_ERROR);
    }

    /** Settles a tracked message that could not be published because the channel was closed: it was never sent. */
    void notSent(long seq) {
        fail(seq, Published.NOT_SENT);
    }

    @Override
    public void handleAck(long seq, boolean multiple) {
        settle(seq, multiple, true);
    }

    @Override
    public void handleNack(long seq, boolean multiple) {
        settle(seq, multiple, false);
    }

    @Override
    public void handleReturn(
            int replyCode,
            String replyText,
            String exchange,
            String routingKey,
            AMQP.BasicProperties properties,
            byte[] body) {
        // a publish route's message names its dispatch in a header (its message id is the event id); a job message by
        // its message id
        Object header = properties.getHeaders() == null
                ? null
                : properties.getHeaders().get(DeliveryMessage.HEADER_DISPATCH_ID);
        String dispatchId = header != null ? header.toString() : properties.getMessageId();
        if (dispatchId == null) {
            return;
        }
        try {
            Published published = byDispatchId.get(UUID.fromString(dispatchId));
            if (published != null) {
                published.markReturned();
            }
        } catch (IllegalArgumentException notOurs) {
            // not a UUID: not a message of ours
        }
    }

    @Override
    public void shutdownCompleted(ShutdownSignalException cause) {
        closed = true;
        for (Long seq : outstanding.keySet()) {
            fail(seq, Published.CONNECTION_LOST);
        }
    }

    private void settle(long seq, boolean multiple, boolean ack) {
        NavigableMap<Long, Published> done =
                multiple ? outstanding.headMap(seq, true) : outstanding.subMap(seq, true, seq, true);
        for (Long s : done.keySet()) {
            Published published = remove(s);
            if (published != null) {
                published.settle(ack ? null : Published.NACK);
            }
        }
    }

    private void fail(long seq, String cause) {
        Published published = remove(seq);
        if (published != null) {
            published.settle(cause);
        }
    }

    private @Nullable Published remove(long seq) {
        Published published = outstanding.remove(seq);
        if (published != null) {
            byDispatchId.remove(published.dispatch().dispatchId(), published);
            window.release();
        }
        return published;
    }
}
