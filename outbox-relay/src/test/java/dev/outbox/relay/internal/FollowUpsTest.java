package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FollowUpsTest {

    private static final Duration SLEEP = Duration.ofSeconds(1);

    private static List<Long> idleWaits(RelayEngine.FollowUps followUps, int passes) {
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < passes; i++) {
            waits.add(followUps.next().toMillis());
        }
        return waits;
    }

    @Test
    void afterABusyPassTheWaitsDoubleFromTheFirstUpToTheSleep() {
        RelayEngine.FollowUps followUps = new RelayEngine.FollowUps(Duration.ofMillis(10), SLEEP);
        followUps.busy();

        assertThat(idleWaits(followUps, 9)).containsExactly(10L, 20L, 40L, 80L, 160L, 320L, 640L, 1_000L, 1_000L);
    }

    @Test
    void aBusyPassStartsThemAgain() {
        RelayEngine.FollowUps followUps = new RelayEngine.FollowUps(Duration.ofMillis(10), SLEEP);
        followUps.busy();
        idleWaits(followUps, 3);
        followUps.busy();

        assertThat(idleWaits(followUps, 2)).containsExactly(10L, 20L);
    }

    @Test
    void withoutABusyPassTheWaitIsTheSleep() {
        RelayEngine.FollowUps idle = new RelayEngine.FollowUps(Duration.ofMillis(10), SLEEP);
        assertThat(idleWaits(idle, 2)).containsExactly(1_000L, 1_000L);
    }

    @Test
    void aSleepShorterThanTheFirstWaitIsTheWait() {
        RelayEngine.FollowUps followUps = new RelayEngine.FollowUps(Duration.ofMillis(10), Duration.ofMillis(5));
        followUps.busy();
        assertThat(idleWaits(followUps, 2)).containsExactly(5L, 5L);
    }
}
