package dev.outbox.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A group takes what is queued, and what arrives within the gap of the item before, up to its size, its room and its linger. */
class GatheringTest {

    /** Long enough that a thread of this test is never late for it, however loaded the machine. */
    static final long GAP = Duration.ofMillis(400).toNanos();

    final BlockingQueue<String> queue = new LinkedBlockingQueue<>();
    final List<Thread> feeders = new ArrayList<>();

    /** Adds {@code items} to the queue from another thread, {@code everyMillis} apart, the first after {@code everyMillis}. */
    void feed(long everyMillis, String... items) {
        Thread t = new Thread(() -> {
            try {
                for (String item : items) {
                    Thread.sleep(everyMillis);
                    queue.add(item);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        feeders.add(t);
        t.start();
    }

    @AfterEach
    void stopFeeders() throws InterruptedException {
        for (Thread t : feeders) {
            t.interrupt();
            t.join();
        }
    }

    static List<String> groupOf(String first) {
        List<String> group = new ArrayList<>();
        group.add(first);
        return group;
    }

    @Test
    void takesWhatIsQueuedAtOnce() throws InterruptedException {
        queue.addAll(List.of("b", "c"));
        List<String> group = groupOf("a");
        long started = System.nanoTime();

        Gathering.rest(queue, group, 10, GAP, 10 * GAP, Gathering.Room.ANY);

        assertThat(group).containsExactly("a", "b", "c");
        assertThat(System.nanoTime() - started)
                .as("then waits one gap for more, no longer")
                .isLessThan(3 * GAP);
    }

    @Test
    void takesWhatArrivesWithinTheGapOfTheItemBefore() throws InterruptedException {
        feed(20, "b", "c", "d");
        List<String> group = groupOf("a");

        Gathering.rest(queue, group, 10, GAP, 10 * GAP, Gathering.Room.ANY);

        assertThat(group).containsExactly("a", "b", "c", "d");
    }

    @Test
    void leavesWhatArrivesAfterTheGapToTheNextGroup() throws InterruptedException {
        feed(3 * GAP / 1_000_000, "late");
        List<String> group = groupOf("a");

        Gathering.rest(queue, group, 10, GAP, 10 * GAP, Gathering.Room.ANY);

        assertThat(group).containsExactly("a");
    }

    @Test
    void stopsAtItsSizeAndLeavesTheRestQueued() throws InterruptedException {
        queue.addAll(List.of("b", "c", "d"));
        List<String> group = groupOf("a");

        Gathering.rest(queue, group, 3, GAP, 10 * GAP, Gathering.Room.ANY);

        assertThat(group).containsExactly("a", "b", "c");
        assertThat(queue).containsExactly("d");
    }

    @Test
    void stopsWhenTheLingerHasGoneByThoughItemsKeepComing() throws InterruptedException {
        feed(
                20, "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u",
                "v", "w", "x", "y");
        List<String> group = groupOf("a");
        long started = System.nanoTime();

        Gathering.rest(queue, group, 100, GAP, Duration.ofMillis(150).toNanos(), Gathering.Room.ANY);

        assertThat(System.nanoTime() - started)
                .isLessThan(Duration.ofMillis(150).toNanos() + GAP);
        assertThat(group).hasSizeLessThan(25).startsWith("a", "b");
    }

    @Test
    void takesNoMoreThanItsRoomAndGivesBackWhatItDidNotUse() throws InterruptedException {
        queue.addAll(List.of("b", "c", "d"));
        Semaphore permits = new Semaphore(2);
        Gathering.Room room = new Gathering.Room() {
            @Override
            public boolean reserve() {
                return permits.tryAcquire();
            }

            @Override
            public void release() {
                permits.release();
            }
        };
        List<String> group = groupOf("a");

        Gathering.rest(queue, group, 10, GAP, 10 * GAP, room);
        assertThat(group).containsExactly("a", "b", "c");
        assertThat(permits.availablePermits()).isZero();

        queue.clear();
        permits.release(2);
        List<String> quiet = groupOf("x");
        Gathering.rest(queue, quiet, 10, Duration.ofMillis(10).toNanos(), 10 * GAP, room);
        assertThat(quiet).containsExactly("x");
        assertThat(permits.availablePermits())
                .as("the permit reserved for an item that did not come")
                .isEqualTo(2);
    }
}
