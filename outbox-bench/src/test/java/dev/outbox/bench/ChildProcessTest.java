package dev.outbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM's CPU as the benchmark reads it from /proc: in all, and by thread with a pool's numbers
 * folded; and the wait for a child that ends by itself.
 */
class ChildProcessTest {

    @TempDir
    Path dir;

    /** Two threads named like a pool's that keep a core busy until the process is stopped. */
    public static final class Spinner {
        public static void main(String[] args) throws Exception {
            for (int i = 1; i <= 2; i++) {
                Thread t = new Thread(
                        () -> {
                            long x = 0;
                            while (true) {
                                x += System.nanoTime() % 7;
                                if (x == -1) {
                                    System.out.println(x);
                                }
                            }
                        },
                        "spinner-" + i);
                t.setDaemon(true);
                t.start();
            }
            Thread.sleep(60_000);
        }
    }

    /** Exits at once with the status of its argument. */
    public static final class Exiter {
        public static void main(String[] args) {
            System.exit(Integer.parseInt(args[0]));
        }
    }

    @Test
    void awaitExitGivesTheExitStatusOfAProcessThatEndsByItself() throws Exception {
        try (ChildProcess child =
                ChildProcess.start("exiter", Exiter.class.getName(), List.of("3"), Map.of(), dir, List.of())) {
            assertThat(child.awaitExit(Duration.ofSeconds(30))).isEqualTo(3);
            assertThat(child.isAlive()).isFalse();
        }
    }

    @Test
    void awaitExitStopsAProcessThatOutlivesTheWaitAndSaysSo() throws Exception {
        try (ChildProcess child =
                ChildProcess.start("spinner", Spinner.class.getName(), List.of(), Map.of(), dir, List.of())) {
            assertThatThrownBy(() -> child.awaitExit(Duration.ofMillis(500)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("spinner did not end within PT0.5S");
            assertThat(child.isAlive()).isFalse();
        }
    }

    @Test
    void readsTheCpuOfEachThreadByNameAddingUpAPoolsThreads() throws Exception {
        try (ChildProcess child =
                ChildProcess.start("spinner", Spinner.class.getName(), List.of(), Map.of(), dir, List.of())) {
            child.sample();
            assertThat(child.threadCpuSeconds()).as("not counted unless asked").isEmpty();
            child.countThreads();
            await().atMost(Duration.ofSeconds(10))
                    .until(
                            () -> { // the spinners have used over half a CPU-second
                                child.sample();
                                return child.threadCpuSeconds().stream()
                                        .anyMatch(e -> e.getKey().equals("spinner-#") && e.getValue() > 0.5);
                            });

            List<Map.Entry<String, Double>> threads = child.threadCpuSeconds();
            assertThat(threads).isNotEmpty();
            assertThat(threads.get(0).getKey()).isEqualTo("spinner-#"); // the two spinners, together the busiest
            assertThat(threads.get(0).getValue()).isGreaterThan(0.5).isLessThanOrEqualTo(child.cpuSeconds());
            assertThat(threads).extracting(Map.Entry::getKey).doesNotContain("spinner-1", "spinner-2");
        }
    }
}
