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
 * The fault suite with small numbers ({@link Scenario#small()}): 3,000 events through two relays and
 * two workers, a few kills -9, a broker stop and an immediate PostgreSQL restart, on private servers.
 * It asserts the promises that hold whatever the faults; the figures are printed, not asserted.
 *
 * <p>A relay and a worker ride out a database or broker outage (issue 12): one that exits unasked
 * fails the test.
 */
// slow, like dev.outbox.testing.Slow (this module does not use the test services): two servers and four JVMs of its own
@Tag("slow")
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class FaultInjectionIT {

    @TempDir
    Path dir;

    @Test
    void noEventIsLostOrCompletedTwiceAndEveryDuplicateHasAFaultBehindIt() throws Exception {
        assumeTrue(
                PrivateRabbit.available(),
                "rabbitmq-server and rabbitmqctl are not on the PATH: the fault suite needs a node of its own");
        Report report = FaultSuite.run(Scenario.small(), dir, System.out);
        System.out.print(report.toMarkdown());

        assertThat(report.drained())
                .as("every delivery ended within the drain timeout")
                .isTrue();
        assertThat(report.eventsCommitted())
                .as("events committed")
                .isEqualTo(Scenario.small().events());
        assertThat(report.acknowledgedMissing())
                .as("events the producers saw committed but missing")
                .isZero();
        assertThat(report.lostEvents())
                .as("committed events without a completed delivery")
                .isZero();
        assertThat(report.doomedFailed())
                .as("always-failing events whose delivery ended failed")
                .isEqualTo(report.doomedEvents());
        assertThat(report.doomedEvents()).isPositive();
        assertThat(report.completedTwice()).as("deliveries completed twice").isZero();
        assertThat(report.completedWithoutCall())
                .as("completed deliveries without a handler call")
                .isZero();
        assertThat(report.unexplainedDuplicates())
                .as("duplicate handler calls without a fault: %s", report.duplicateCauses())
                .isZero();
        assertThat(report.notStoppedOnSigterm())
                .as("processes still running 20 s after SIGTERM: %s", report.stops())
                .isZero();
        assertThat(report.relayKills() + report.workerKills()).as("kills").isPositive();
        assertThat(report.outages()).extracting(Outage::kind).contains(Outage.Kind.BROKER_STOP, Outage.Kind.PG_RESTART);
        assertThat(report.unexpectedRelayExits())
                .as("relays that exited unasked: %s", report.unexpectedExits())
                .isZero();
        assertThat(report.unexpectedWorkerExits())
                .as("workers that exited unasked: %s", report.unexpectedExits())
                .isZero();
    }
}
