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
 * Overload (issue 37, {@link Scenario#overload()}): consumers slower than the producers for 40 s (400 ms a job) with
 * a broker stop halfway, then 40 s of recovery, beside a CPU hog. A backlog of stale messages must not
 * stop useful work, work that never ran must not fail, the queue and the logs stay bounded.
 */
@Tag("slow")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class OverloadIT {

    /** After the last fault, the goodput keeps up with what is offered within this many seconds. */
    static final double RECOVERY_SECONDS = 30;
    /** The relays' and workers' logs of the whole run, every start together. */
    static final long MAX_LOG_BYTES = 250_000;

    @TempDir
    Path dir;

    @Test
    void goodputComesBackNothingFailsUnrunAndQueueAndLogsStayBounded() throws Exception {
        assumeTrue(
                PrivateRabbit.available(),
                "rabbitmq-server and rabbitmqctl are not on the PATH: the fault suite needs a node of its own");
        Scenario scenario = Scenario.overload();
        Report report = FaultSuite.run(scenario, dir, System.out);
        System.out.print(report.toMarkdown());
        Load load = report.load();

        assertThat(report.brokenPromises(true, true))
                .as("the fault suite's promises")
                .isEmpty();
        assertThat(report.eventsCommitted()).as("events committed").isEqualTo(scenario.events());
        assertThat(load.failedWithoutCall())
                .as("deliveries failed without their handler having run")
                .isZero();
        assertThat(load.recoverySeconds())
                .as("seconds from the last fault until the goodput kept up with the offered rate")
                .isLessThanOrEqualTo(RECOVERY_SECONDS);
        assertThat(load.peakReadyMessages())
                .as("peak ready messages in the job queue")
                .isBetween(1L, load.queueBound());
        assertThat(load.logBytes()).as("bytes the relays and workers logged").isLessThanOrEqualTo(MAX_LOG_BYTES);
    }
}
