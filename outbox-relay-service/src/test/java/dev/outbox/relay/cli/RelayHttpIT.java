package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.Tables;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.Slow;
import dev.outbox.testing.TcpProxy;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code OUTBOX_HTTP_PORT}: the service as its own process serves {@code /metrics} in Prometheus'
 * format and its health; readiness follows the broker (behind a {@link TcpProxy}); SIGTERM closes it.
 */
@Slow
class RelayHttpIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    static final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the sample {@code series} (name and labels as Prometheus writes them), or null. */
    static Double sample(String metrics, String series) {
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE)
                .matcher(metrics);
        return m.find() ? Double.valueOf(m.group(1)) : null;
    }

    @Test
    void servesMetricsAndHealthFollowsTheBrokerAndSigtermClosesIt() throws Exception {
        String queue = rabbit.queue("refunds");
        int port = freePort();
        Path stderr = dir.resolve("stderr.log");
        try (TcpProxy broker = TcpProxy.toAmqpUri(rabbit.uri())) {
            Map<String, String> env = RelayCommandIT.env(db, rabbit, ChildRelay.refundRoutes(dir, queue));
            env.put("OUTBOX_AMQP_URI", broker.amqpUri(rabbit.uri()));
            env.put("OUTBOX_HTTP_PORT", Integer.toString(port));
            ProcessBuilder pb = ChildRelay.command(List.of(), "relay", "--loop", "--sleep=1")
                    .redirectError(stderr.toFile())
                    .redirectOutput(dir.resolve("stdout.log").toFile());
            pb.environment().putAll(env);
            Process process = pb.start();
            try {
                Awaitility.await()
                        .atMost(Duration.ofSeconds(60))
                        .ignoreExceptionsInstanceOf(ConnectException.class)
                        .until(() -> get(port, "/health/ready").statusCode() == 200);
                assertThat(get(port, "/health/ready").body()).contains("\"database\":\"up\"", "\"broker\":\"up\"");
                assertThat(get(port, "/health/live").statusCode()).isEqualTo(200);

                Tables tables = new Tables(db);
                tables.record(
                        new OrderCancelled(1),
                        new OrderCancelled(2),
                        new OrderCancelled(3),
                        new OrderCancelled(4),
                        new OrderCancelled(5));
                String labels = "{kind=\"job\",queue=\"" + queue + "\"}";
                Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> Double.valueOf(5)
                                .equals(sample(
                                        get(port, "/metrics").body(),
                                        "outbox_relay_deliveries_confirmed_total" + labels)));
                HttpResponse<String> scrape = get(port, "/metrics");
                assertThat(scrape.statusCode()).isEqualTo(200);
                assertThat(scrape.headers().firstValue("Content-Type"))
                        .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
                String metrics = scrape.body();
                assertThat(sample(metrics, "outbox_relay_events_routed_total")).isEqualTo(5);
                assertThat(sample(metrics, "outbox_relay_deliveries_dispatched_total" + labels))
                        .isEqualTo(5);
                assertThat(sample(metrics, "outbox_relay_confirm_latency_seconds_count{queue=\"" + queue + "\"}"))
                        .isEqualTo(5);
                assertThat(metrics)
                        .contains(
                                "# TYPE outbox_relay_pass_seconds summary",
                                "jvm_memory_used_bytes{",
                                "process_uptime_seconds ",
                                "jvm_threads_live_threads ");
                Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> Double.valueOf(0)
                                .equals(sample(
                                        get(port, "/metrics").body(),
                                        "outbox_relay_deliveries_pending{queue=\"" + queue + "\"}")));

                broker.down();
                Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> get(port, "/health/ready").statusCode() == 503);
                assertThat(get(port, "/health/ready").body()).contains("\"database\":\"up\"", "\"broker\":\"down");
                broker.up();
                Awaitility.await()
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> get(port, "/health/ready").statusCode() == 200);

                process.destroy(); // SIGTERM
                assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(process.exitValue()).isZero();
                assertThatThrownBy(() -> get(port, "/health/live")).isInstanceOf(ConnectException.class);
                assertThat(Files.readString(stderr))
                        .contains("HTTP endpoint on http://127.0.0.1:" + port, "HTTP endpoint closed");
            } finally {
                process.destroyForcibly();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "65536", "-1", "http", "80.5"})
    void refusesAPortThatIsNotOneTo65535(String port) throws Exception {
        Map<String, String> env = new HashMap<>(RelayCommandIT.env(db, rabbit, ChildRelay.refundRoutes(dir, "unused")));
        env.put("OUTBOX_HTTP_PORT", port);

        RelayCommandIT.Run run = RelayCommandIT.run(env, "relay", "--loop");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .isEqualTo(
                        "outbox-relay: OUTBOX_HTTP_PORT: must be a whole number from 1 to 65535, got '" + port + "'\n");
    }

    @Test
    void refusesAHostThatIsNoHostAndAHostWithoutAPort() throws Exception {
        Map<String, String> env = new HashMap<>(RelayCommandIT.env(db, rabbit, ChildRelay.refundRoutes(dir, "unused")));
        env.put("OUTBOX_HTTP_PORT", "9400");
        env.put("OUTBOX_HTTP_HOST", "not a host/");
        assertThat(RelayCommandIT.run(env, "relay", "--loop").err())
                .isEqualTo(
                        "outbox-relay: OUTBOX_HTTP_HOST: must be a host name or an IP address (e.g. 0.0.0.0 for every interface),"
                                + " got 'not a host/'\n");

        env.remove("OUTBOX_HTTP_PORT");
        env.put("OUTBOX_HTTP_HOST", "0.0.0.0");
        RelayCommandIT.Run run = RelayCommandIT.run(env, "relay", "--loop");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .isEqualTo(
                        "outbox-relay: OUTBOX_HTTP_HOST: is set but OUTBOX_HTTP_PORT is not: set the port to turn the"
                                + " HTTP endpoint on\n");
    }

    @Test
    void bindsToTheLoopbackAddressUnlessToldOtherwise() {
        assertThat(ServiceSettings.load(Map.of(), null).httpHost().isLoopbackAddress())
                .isTrue();
        assertThat(ServiceSettings.load(Map.of(), null).httpPort()).isNull();
        assertThat(ServiceSettings.load(Map.of("OUTBOX_HTTP_PORT", "9400", "OUTBOX_HTTP_HOST", "0.0.0.0"), null)
                        .httpHost()
                        .isAnyLocalAddress())
                .isTrue();
    }

    @Test
    void ignoresTheServiceLinkKubernetesGivesForAServiceNamedOutboxHttp() {
        Map<String, String> links = Map.of(
                "OUTBOX_HTTP_PORT",
                "tcp://10.0.0.7:80",
                "OUTBOX_HTTP_SERVICE_HOST",
                "10.0.0.7",
                "OUTBOX_HTTP_SERVICE_PORT",
                "80",
                "OUTBOX_HTTP_PORT_80_TCP",
                "tcp://10.0.0.7:80");
        assertThat(ServiceSettings.load(links, null).httpPort()).isNull();

        Map<String, String> explicit = new HashMap<>(links);
        explicit.put("OUTBOX_HTTP_PORT", "9400");
        assertThat(ServiceSettings.load(explicit, null).httpPort()).isEqualTo(9400);
        assertThatThrownBy(() -> ServiceSettings.load(Map.of("OUTBOX_HTTP_PORT", "tcp://10.0.0.7:80"), null)
                        .httpPort())
                .hasMessageContaining("OUTBOX_HTTP_PORT");
    }

    @Test
    void aPortInUseIsReportedNamingTheSetting() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Map<String, String> env =
                    new HashMap<>(RelayCommandIT.env(db, rabbit, ChildRelay.refundRoutes(dir, rabbit.queue("taken"))));
            env.put("OUTBOX_HTTP_PORT", Integer.toString(taken.getLocalPort()));

            RelayCommandIT.Run run = RelayCommandIT.run(env, "relay", "--loop");

            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err())
                    .startsWith("outbox-relay: OUTBOX_HTTP_PORT: cannot listen on 127.0.0.1:" + taken.getLocalPort()
                            + " (BindException; is the port in use?")
                    .hasLineCount(1);
        }
    }

    @Test
    void theLiveWindowIsThreeSleepsAndAConfirmTimeoutAndAtLeastTwoMinutes() {
        assertThat(RelayCommand.liveWindow(1, Duration.ofSeconds(30))).isEqualTo(Duration.ofMinutes(2));
        assertThat(RelayCommand.liveWindow(60, Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(210));
    }
}
