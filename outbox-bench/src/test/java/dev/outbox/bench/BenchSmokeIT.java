package dev.outbox.bench;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testing.Slow;
import dev.outbox.testing.TestPostgres;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The benchmark with small numbers, so that it keeps compiling and correct: every scenario runs the
 * relay and the worker as processes of their own and checks that every delivery was completed
 * exactly once, and so does the reference pipeline. The figures themselves are never asserted.
 */
@Slow
@Execution(ExecutionMode.CONCURRENT) // its tests share nothing: own schemas, queues, work directories
class BenchSmokeIT {

    @TempDir
    Path dir;

    @Test
    void everyScenarioRunsEndToEndAndPassesItsCorrectnessCheck() throws Exception {
        Bench bench = new Bench(Bench.Scale.SMOKE, dir);
        for (String scenario : Bench.DEFAULT_SCENARIOS) {
            bench.run(scenario); // throws when a delivery was lost, duplicated or not completed
        }
        Map<String, Map<String, List<Double>>> results = bench.results();
        assertThat(results)
                .containsKeys(
                        "CEIL",
                        "S1",
                        "S2",
                        "S3",
                        "S4 LISTEN/NOTIFY",
                        "S4 poll-only",
                        "S5",
                        "R1",
                        "REF-S1",
                        "REF-S1-FRESH",
                        "REF-S2",
                        "REF-R1",
                        "REF-R1-TX");
        assertThat(results.get("R1")).containsKey(Bench.PRODUCER_CPU_METRIC);
        assertThat(results.get("REF-R1-TX")).containsKeys(Bench.R1_METRIC, Bench.PRODUCER_CPU_METRIC);
        assertThat(results.get("REF-S1")).containsKey("events/s (backlog 500)");
        assertThat(results.get("REF-S1-FRESH"))
                .containsKeys("events/s (backlog 500)", Bench.FRESH_REFERENCE_CPU_METRIC);
        assertThat(results.get("REF-S1-FRESH")
                        .get(Bench.FRESH_REFERENCE_CPU_METRIC)
                        .get(0))
                .isPositive();
        assertThat(results.get("REF-S2")).containsKey("commit→completed p99 ms");
        assertThat(results.get("S2")).containsKey("worker CPU s per 100,000 events");
        assertThat(results.get("S1")).containsKeys("events/s (backlog 500)", "relay peak RSS MB", "worker peak RSS MB");
        assertThat(results.get("S2")).containsKey("commit→completed p99 ms");
        assertThat(results.get("S3")).containsKey("commit→consumed p99 ms");
        assertThat(results.get("S4 LISTEN/NOTIFY")).containsKey("commit→handler start p99 ms");
        assertThat(results.get("S1").get("relay peak RSS MB").get(0)).isPositive();
    }

    @Test
    void theOrderedScenariosRunEndToEndAndPassTheirCorrectnessCheck() throws Exception {
        Bench bench = new Bench(Bench.Scale.SMOKE, dir);
        bench.run("S2-ORDERED"); // throws when a delivery was lost, duplicated or not completed
        bench.run("S2-HOT");
        assertThat(bench.results().get("S2-ORDERED")).containsKeys("events/s", "commit→completed p99 ms");
        assertThat(bench.results().get("S2-HOT").get("events/s recorded").get(0))
                .isPositive();
    }

    @Test
    void theFixedRateScenarioPrintsItsTimelineFromEachCommitAndByStage() throws Exception {
        Bench bench = new Bench(Bench.Scale.SMOKE, dir);
        bench.timeline = true;
        java.io.PrintStream out = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            bench.run("S4"); // throws when a handled event has no commit time or no delivery
        } finally {
            System.setOut(out);
        }
        String lines = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
        out.print(lines);
        for (String name : List.of("S4 LISTEN/NOTIFY", "S4 poll-only")) {
            assertThat(lines)
                    .contains(
                            name + " second 0: p50 ",
                            name + " producers second 0: ",
                            name + " stages second 0: commit→T1 p50 ",
                            name + ": producers warmed up for ");
            assertThat(bench.results().get(name))
                    .containsKeys("commit→handler start p99 ms", "made→handler start p99 ms");
        }
    }

    @Test
    void aSchemasNewConnectionsCloseTheirPoolAndLeaveItsTables() throws Exception {
        try (Bench.Schema schema = Bench.Schema.create(TestPostgres.get())) {
            Bench.Schema connections = schema.newConnections();
            assertThat(connections.dsl().fetchCount(OUTBOX_EVENTS)).isZero();
            connections.close();
            assertThat(connections.dataSource.isClosed()).isTrue();
            assertThat(schema.dsl().fetchCount(OUTBOX_EVENTS)).isZero(); // the tables are still there
        }
    }

    @Test
    void theQuietRecordingsScenarioReportsNotifyingAndQuietEventsApart() throws Exception {
        Bench bench = new Bench(Bench.Scale.SMOKE, dir);
        bench.run("Q1"); // throws when a delivery was lost, duplicated or not completed within 60 s
        assertThat(bench.results().get("Q1"))
                .containsKeys(
                        "notifying: commit→handler start p99 ms",
                        "quiet, committed " + Bench.QUIET_COMMIT_DELAY_MILLIS
                                + " ms later: commit→handler start p99 ms");
        // the relay routed and dispatched every pair meanwhile: it cannot have spent nothing
        assertThat(bench.results().get("Q1").get("relay CPU ms per pair, from the first pair until all completed"))
                .singleElement()
                .satisfies(ms -> assertThat(ms).isPositive());
    }

    @Test
    void theHeadersScenarioGivesTheBrokersCpuPerMessageOfEachKindOfMessage() throws Exception {
        Bench bench = new Bench(Bench.Scale.SMOKE, dir);
        bench.run("AMQP-HEADERS"); // throws when a message did not come back
        Map<String, List<Double>> figures = bench.results().get("AMQP-HEADERS");
        assertThat(figures).hasSize(3);
        // NaN only where the broker is not a process of this machine
        assertThat(figures.values())
                .allSatisfy(values -> assertThat(values)
                        .hasSize(2)
                        .allSatisfy(
                                v -> assertThat(v.isNaN() || v > 0).as("%s", v).isTrue()));
    }

    @Test
    void thePurgeScenarioDeletesOnlyTheSeededRowsBesideLiveTraffic() throws Exception {
        Bench bench = new Bench(Bench.Scale.SMOKE, dir);
        bench.run("P1"); // throws when the purge missed a seeded row or took a live one
        assertThat(bench.results().get("P1"))
                .containsKeys(
                        "purge rows/s (deliveries + events)",
                        "longest producer transaction ms, during the purge",
                        "during the purge: commit→completed p99 ms",
                        "before the purge: commit→completed p99 ms",
                        "after the purge: commit→completed p99 ms");
    }
}
