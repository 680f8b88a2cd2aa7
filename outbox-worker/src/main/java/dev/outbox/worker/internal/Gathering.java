package dev.outbox.worker.internal;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * How the worker's threads take work in groups, so that one statement serves many messages: after a
 * group's first item, what is queued joins it at once, and what arrives within {@code gap} of the
 * item before it joins it too, until the group holds {@code max}, its {@link Room} says no more, or
 * {@code linger} has gone by since the first item. A quiet queue costs a group one {@code gap} of
 * waiting; a stream fills it.
 */
final class Gathering {

    private Gathering() {}

    /** Whether one more item may join the group: asked before each item is taken. */
    interface Room {

        /** Room without limit. */
        Room ANY = new Room() {
            @Override
            public boolean reserve() {
                return true;
            }

            @Override
            public void release() {}
        };

        /** Reserves room for one more item; false when there is none now. */
        boolean reserve();

        /** Gives back room reserved for an item that did not come. */
        void release();
    }

    /**
     * Adds to {@code group} (which holds the group's first item) what {@code queue} holds and what
     * arrives within {@code gapNanos} of the last item taken, until the group holds {@code max} items,
     * {@code room} has none left, or {@code lingerNanos} have gone by since this call.
     */
    static <T> void rest(BlockingQueue<T> queue, List<T> group, int max, long gapNanos, long lingerNanos, Room room)
            throws InterruptedException {
        long until = System.nanoTime() + lingerNanos;
        while (group.size() < max && room.reserve()) {
            T next = queue.poll();
            if (next == null) {
                long wait = Math.min(gapNanos, until - System.nanoTime());
                next = wait > 0 ? queue.poll(wait, TimeUnit.NANOSECONDS) : null;
            }
            if (next == null) {
                room.release();
                return;
            }
            group.add(next);
        }
    }
}
