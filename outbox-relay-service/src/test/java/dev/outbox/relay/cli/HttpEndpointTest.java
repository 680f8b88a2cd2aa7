package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Tags;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The relay's HTTP endpoint in process, as a hostile client sees it: connections that never finish
 * their request, and paths that only look like ours.
 */
class HttpEndpointTest {

    private static final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpEndpoint endpoint;
    private int port;
    private final List<Socket> held = new ArrayList<>();

    @BeforeEach
    void open() throws IOException {
        endpoint = HttpEndpoint.open(
                InetAddress.getLoopbackAddress(), RelayHttpIT.freePort(), Duration.ofHours(1), () -> {}, () -> {});
        port = endpoint.port();
    }

    @AfterEach
    void close() throws IOException {
        for (Socket s : held) {
            s.close();
        }
        if (endpoint != null) {
            endpoint.close();
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        // generous: the bound only tells "answers" from "is held down", it measures nothing
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(30))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 40})
    void answersLivenessWhileConnectionsHoldHalfSentRequests(int connections) throws Exception {
        for (int i = 0; i < connections; i++) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
            held.add(s);
            OutputStream out = s.getOutputStream();
            out.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        assertThat(get("/health/live").statusCode()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/metricsx",
                "/metrics/",
                "/metrics/../../etc/passwd",
                "/health/livez",
                "/health/live/extra",
                "/health/ready/",
                "/health",
                "/",
                "/health/LIVE"
            })
    void answersOnlyItsThreeExactPaths(String path) throws Exception {
        HttpResponse<String> response = get(path);

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).doesNotContain("live", "ready", "jvm_");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/metrics", "/health/live", "/health/ready", "/metrics?name=x"})
    void answersItsThreePaths(String path) throws Exception {
        assertThat(get(path).statusCode()).isEqualTo(200);
    }

    @Test
    void escapesControlCharactersInLabelValues() throws Exception {
        // a queue name read from the tables (another program may have written it) becomes a label
        endpoint.registry().gauge("outbox.test.depth", Tags.of("queue", "jobs\u001b[2J\u0007"), 1);

        String metrics = get("/metrics").body();

        assertThat(metrics)
                .doesNotContain("\u001b", "\u0007")
                .contains("outbox_test_depth{queue=\"jobs\\\\u001b[2J\\\\u0007\"}");
    }

    @Test
    void closingWithNoRequestInFlightDoesNotWaitOutTheirGrace() throws Exception {
        assertThat(get("/health/live").statusCode()).isEqualTo(200);

        long start = System.nanoTime();
        endpoint.close();
        endpoint = null;

        // JDK 17's HttpServer.stop(1) waits its whole second even when idle (fixed in 21, JDK-8304065);
        // a stopping relay service and every test that closes one paid it
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(900));
    }
}
