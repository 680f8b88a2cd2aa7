package dev.outbox.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JfrTopTest {

    @Test
    void groupsTheWaitsOfARecordingByThreadAndProjectMethod(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("waits.jfr");
        try (Recording recording = new Recording()) {
            recording
                    .enable("jdk.ThreadPark")
                    .withThreshold(Duration.ofMillis(10))
                    .withStackTrace();
            recording.start();
            for (int i = 1; i <= 2; i++) {
                Thread t = new Thread(() -> parkFor(3, 30), "waiter-" + i);
                t.start();
                t.join();
            }
            recording.stop();
            recording.dump(file);
        }

        List<JfrTop.Waits> waits = JfrTop.waits(file).stream()
                .filter(w -> w.method().equals(JfrTopTest.class.getName() + ".parkFor"))
                .toList();

        assertThat(waits).hasSize(1);
        JfrTop.Waits w = waits.get(0);
        assertThat(w.event()).isEqualTo("jdk.ThreadPark");
        assertThat(w.thread()).as("the digits of the two threads' names folded").isEqualTo("waiter-#");
        assertThat(w.count()).isEqualTo(6);
        assertThat(w.p50Millis()).isGreaterThanOrEqualTo(29);
        assertThat(w.totalMillis()).isGreaterThanOrEqualTo(6 * 29);
        assertThat(w.maxMillis()).isGreaterThanOrEqualTo(w.p50Millis());
    }

    private static void parkFor(int times, long millis) {
        for (int i = 0; i < times; i++) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
        }
    }
}
