package dev.outbox.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outbox.testing.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BackendCpuIT {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void countsTheCpuOfTheBackendsServingAClientByItsApplicationName() throws Exception {
        BackendCpu backends = new BackendCpu(pg);
        String url = BackendCpu.withClient(pg.jdbcUrl(), "probe");
        try (Connection busy = DriverManager.getConnection(url, pg.user(), pg.password());
                Statement s = busy.createStatement()) {
            backends.sample(); // finds the backend before it works
            try (ResultSet r = s.executeQuery("SELECT count(*) FROM generate_series(1, 5000000) g WHERE g % 7 = 3")) {
                r.next();
            }
            backends.sample();
        }
        Optional<Double> probe = backends.seconds("probe");
        assumeTrue(probe.isPresent(), "the server runs on another machine");
        assertThat(probe.get()).as("CPU s of the probe's backend").isGreaterThanOrEqualTo(0.1);
        assertThat(backends.seconds("relay")).contains(0.0);
        assertThat(backends.seen("probe")).isTrue();
        assertThat(backends.seen("relay")).isFalse();
        backends.sample(); // the backend has ended (or is ending): its last reading stands
        assertThat(backends.seconds("probe").orElseThrow()).isGreaterThanOrEqualTo(probe.get());
    }

    @Test
    void asksForNewBackendsOnOneConnectionOfItsOwnThatItDoesNotCount() throws Exception {
        BackendCpu backends = new BackendCpu(pg); // closed in the test, which then looks at its backend
        try (Connection probe = pg.connect();
                Statement s = probe.createStatement()) {
            List<Integer> pids = new ArrayList<>();
            for (int i = 0; i < 3 * BackendCpu.REFRESH_EVERY; i++) {
                backends.sample();
                assumeTrue(backends.seconds("relay").isPresent(), "the server runs on another machine");
                if (i % BackendCpu.REFRESH_EVERY == 0) { // just after a refresh
                    try (ResultSet r = s.executeQuery("SELECT pid FROM pg_stat_activity WHERE application_name = '"
                            + BackendCpu.client(BackendCpu.SAMPLER) + "'")) {
                        while (r.next()) {
                            pids.add(r.getInt(1));
                        }
                    }
                }
            }
            assertThat(pids)
                    .as("the refreshes' backend, after each of three refreshes")
                    .hasSize(3)
                    .containsOnly(pids.get(0));
            assertThat(backends.seen(BackendCpu.SAMPLER)).isFalse();
            backends.close();
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(
                            () -> { // the backend ends just after the connection closes
                                try (ResultSet r = s.executeQuery(
                                        "SELECT count(*) FROM pg_stat_activity WHERE pid = " + pids.get(0))) {
                                    r.next();
                                    assertThat(r.getInt(1))
                                            .as("the refreshes' backend after close")
                                            .isZero();
                                }
                            });
        } finally {
            backends.close(); // again after the test's own close: a no-op
        }
    }

    @Test
    void findsAClientThatConnectsAfterTheFirstSampleAtTheNextSample() throws Exception {
        try (BackendCpu backends = new BackendCpu(pg)) {
            backends.sample(); // before any client of this test connected, as when a scenario starts a JVM that
            // connects later
            assumeTrue(backends.seconds("late").isPresent(), "the server runs on another machine");
            try (Connection late = DriverManager.getConnection(
                    BackendCpu.withClient(pg.jdbcUrl(), "late"), pg.user(), pg.password())) {
                assertThat(late.isValid(5)).isTrue();
                backends.sample();
                assertThat(backends.seen("late"))
                        .as("found at the second sample, not the " + BackendCpu.REFRESH_EVERY + "th")
                        .isTrue();
            }
        }
    }

    @Test
    void namesTheClientInTheJdbcUrl() {
        assertThat(BackendCpu.withClient("jdbc:postgresql://127.0.0.1:5432/test", "relay"))
                .isEqualTo("jdbc:postgresql://127.0.0.1:5432/test?ApplicationName=outbox-bench-relay");
        assertThat(BackendCpu.withClient("jdbc:postgresql://127.0.0.1:5432/test?ssl=false", "worker"))
                .isEqualTo("jdbc:postgresql://127.0.0.1:5432/test?ssl=false&ApplicationName=outbox-bench-worker");
        assertThatThrownBy(() -> BackendCpu.withClient("jdbc:postgresql://h/test?ApplicationName=app", "relay"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ApplicationName");
    }
}
