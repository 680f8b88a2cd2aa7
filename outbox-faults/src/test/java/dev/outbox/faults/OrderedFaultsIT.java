package dev.outbox.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault suite on ordered routes ({@link Scenario#orderedSmall()}, issue 39): 1,000 events over 20
 * keys through two relays and two workers killed with -9; events that fail once, and
 * events that fail for good and block their key until the suite skips or heals and requeues them.
 * Per key: handler starts follow the order, never two in flight, a blocked key holds exactly its
 * own deliveries, skip and requeue unblock it, nothing is lost.
 */
@Tag("slow")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class OrderedFaultsIT {

    @TempDir
    Path dir;

    @Test
    void orderPerKeyHoldsThroughKillsAndBlockedKeysAreUnblocked() throws Exception {
        assumeTrue(
                PrivateRabbit.available(),
                "rabbitmq-server and rabbitmqctl are not on the PATH: the fault suite needs a node of its own");
        Scenario scenario = Scenario.orderedSmall();
        Report report = FaultSuite.run(scenario, dir, System.out);
        System.out.print(report.toMarkdown());
        OrderedKeys.Result ordering = report.ordering();

        assertThat(report.brokenPromises(true, true))
                .as("the fault suite's promises, the order per key among them")
                .isEmpty();
        assertThat(report.eventsCommitted()).as("events committed").isEqualTo(scenario.events());
        assertThat(ordering).isNotNull();
        assertThat(ordering.keys()).as("keys").isEqualTo(scenario.keys());
        assertThat(ordering.outOfOrderStarts())
                .as("handler calls that began after a later delivery of their key")
                .isZero();
        assertThat(ordering.overlapping())
                .as("deliveries dispatched while the one ahead in their key was open")
                .isZero();
        assertThat(ordering.overtaken())
                .as("deliveries that ran behind a blocked head")
                .isZero();
        assertThat(ordering.blockedHeads())
                .as("heads that failed for good and blocked their key")
                .isPositive();
        assertThat(ordering.skipped()).as("skipped heads").isPositive();
        assertThat(ordering.requeued()).as("healed and requeued heads").isPositive();
        assertThat(ordering.skipped() + ordering.requeued()).isEqualTo(ordering.blockedHeads());
        assertThat(ordering.stillBlocked()).as("keys blocked at the end").isZero();
        assertThat(report.lostEvents())
                .as("committed events neither completed nor skipped")
                .isZero();
        assertThat(report.completedTwice()).as("deliveries completed twice").isZero();
        assertThat(report.relayKills()).as("relay kills").isPositive();
        assertThat(report.workerKills()).as("worker kills").isPositive();
    }
}
