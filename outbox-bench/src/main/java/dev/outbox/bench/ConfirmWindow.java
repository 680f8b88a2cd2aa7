package dev.outbox.bench;

import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Asynchronous publisher confirms with a bounded number in flight on one channel: {@link #publishing}
 * waits for room, the broker's acks and nacks (single or multiple) free it. Nacks are counted.
 */
final class ConfirmWindow {

    private final Semaphore room;
    private final NavigableSet<Long> outstanding = new ConcurrentSkipListSet<>();
    private final AtomicLong nacks = new AtomicLong();
    private final Channel channel;

    ConfirmWindow(Channel channel, int inFlight) throws IOException {
        this.channel = channel;
        this.room = new Semaphore(inFlight);
        channel.confirmSelect();
        channel.addConfirmListener((tag, multiple) -> release(tag, multiple), (tag, multiple) -> {
            nacks.addAndGet(release(tag, multiple));
        });
    }

    /** Waits for room, then registers the next publish of the channel (call just before basicPublish, on the publishing thread). */
    void publishing() throws InterruptedException {
        room.acquire();
        outstanding.add(channel.getNextPublishSeqNo());
    }

    long nacks() {
        return nacks.get();
    }

    private int release(long tag, boolean multiple) {
        int n;
        if (multiple) {
            NavigableSet<Long> head = outstanding.headSet(tag, true);
            n = head.size();
            head.clear();
        } else {
            n = outstanding.remove(tag) ? 1 : 0;
        }
        room.release(n);
        return n;
    }
}
