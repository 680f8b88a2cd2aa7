package dev.outbox.worker.internal;

import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.Collection;
import java.util.Iterator;
import java.util.TreeSet;

/**
 * The acknowledgements of one channel, serialized (a channel is not safe for concurrent use), with
 * the delivery tags it has received and not yet settled. A group of acks whose tags are the oldest
 * unsettled ones goes out as one {@code basicAck(tag, multiple = true)}: a multiple ack covers every
 * unsettled tag up to it, so it is sent only up to the first tag that is still open (a job running, a
 * message not yet read); the rest of the group is acknowledged one by one. Tags are recorded under a
 * lock of their own, so that the consumer's thread never waits for a channel operation (a close waits
 * for the consumer's thread).
 */
final class ChannelAcks {

    private final Channel channel;
    private final TreeSet<Long> unsettled = new TreeSet<>();

    ChannelAcks(Channel channel) {
        this.channel = channel;
    }

    /** Every message the channel delivers, first thing, whether or not it will be handled. */
    void received(long tag) {
        synchronized (unsettled) {
            unsettled.add(tag);
        }
    }

    synchronized void ack(long tag) throws IOException {
        settled(tag);
        channel.basicAck(tag, false);
    }

    synchronized void reject(long tag) throws IOException {
        settled(tag);
        channel.basicReject(tag, false);
    }

    private void settled(long tag) {
        synchronized (unsettled) {
            unsettled.remove(tag);
        }
    }

    /** Acknowledges {@code tags}, whose outcomes are committed: one multiple ack for those that are the oldest unsettled, single acks for the rest. */
    synchronized void ackAll(Collection<Long> tags) throws IOException {
        TreeSet<Long> open = new TreeSet<>(tags);
        long upTo = -1;
        synchronized (unsettled) {
            // tags received meanwhile are newer than any of the group: they never fall under upTo
            open.retainAll(unsettled);
            int covered = 0;
            for (Iterator<Long> it = unsettled.iterator(); it.hasNext(); ) {
                long tag = it.next();
                if (!open.contains(tag)) {
                    break;
                }
                upTo = tag;
                covered++;
            }
            if (covered > 1) {
                unsettled.headSet(upTo, true).clear();
                open.headSet(upTo, true).clear();
            } else {
                upTo = -1;
            }
            unsettled.removeAll(open);
        }
        if (upTo >= 0) {
            channel.basicAck(upTo, true);
        }
        for (long tag : open) {
            channel.basicAck(tag, false);
        }
    }

    /** Runs {@code action} on the channel between acknowledgements (cancel, close). */
    synchronized void exclusively(ChannelAction action) throws IOException, java.util.concurrent.TimeoutException {
        action.run(channel);
    }

    @FunctionalInterface
    interface ChannelAction {
        void run(Channel channel) throws IOException, java.util.concurrent.TimeoutException;
    }
}
