package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code /health/live} over HTTP: 503 once the loop's meters have shown no progress for longer than
 * the live window, 200 again at the next progress. The window is 1 s here; the service's is at least
 * 2 min ({@link RelayHttpIT} shows the service feeding these meters while it relays).
 */
class HealthLiveIT {

    @Test
    void saysStalledAfterTheWindowWithoutProgressAndLiveAgainAtTheNextPass() throws Exception {
        int port = RelayHttpIT.freePort();
        try (HttpEndpoint http =
                HttpEndpoint.open(InetAddress.getLoopbackAddress(), port, Duration.ofSeconds(1), () -> {}, () -> {})) {
            assertThat(RelayHttpIT.get(port, "/health/live").statusCode()).isEqualTo(200);

            Awaitility.await()
                    .atMost(10, TimeUnit.SECONDS)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> RelayHttpIT.get(port, "/health/live").statusCode() == 503);
            HttpResponse<String> stalled = RelayHttpIT.get(port, "/health/live");
            assertThat(stalled.statusCode()).isEqualTo(503);
            assertThat(stalled.body()).contains("\"status\":\"stalled\"").contains("\"limitSeconds\":1");

            http.registry().timer("outbox.relay.pass", "outcome", "idle").record(Duration.ofMillis(1));

            Awaitility.await()
                    .atMost(10, TimeUnit.SECONDS)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> RelayHttpIT.get(port, "/health/live").statusCode() == 200);
            assertThat(RelayHttpIT.get(port, "/health/live").body()).contains("\"status\":\"live\"");
        }
    }
}
