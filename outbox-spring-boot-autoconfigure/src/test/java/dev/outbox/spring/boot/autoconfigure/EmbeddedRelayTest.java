package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Routes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded relay's routes, from {@code outbox.relay.routes-file} and {@code Routes} beans, and its properties' names in errors. */
class EmbeddedRelayTest {

    @TempDir
    Path dir;

    private static final String FILE = """
            routes:
              order.placed:
                - job: send-confirmation
                  queue: emails
                  retryDelaysSeconds: [5, 30]
                  deliveryTimeoutSeconds: 300
            """;

    private static Routes invoicing() {
        return Routes.builder()
                .job("order.placed", "send-invoice", "invoices", RetrySchedule.seconds(60), Duration.ofMinutes(5))
                .build();
    }

    private Path file(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void theRoutesOfTheFileAndOfTheBeansAreTheRelaysTogether() throws IOException {
        Routes routes = EmbeddedRelay.routes(file("routes.yaml", FILE).toString(), Map.of("invoicing", invoicing()));

        assertThat(routes.of("order.placed"))
                .extracting(dev.outbox.relay.Route::name)
                .containsExactly("send-confirmation", "send-invoice");
    }

    @Test
    void noRoutesAtAllFailNamingBothWaysToGiveThem() {
        assertThatThrownBy(() -> EmbeddedRelay.routes(null, Map.of()))
                .isInstanceOf(OutboxPropertyException.class)
                .hasMessage(
                        "outbox.relay.enabled=true, but the relay has no routes: set outbox.relay.routes-file or declare a Routes bean")
                .extracting(e -> ((OutboxPropertyException) e).property())
                .isEqualTo("outbox.relay.enabled");
    }

    @Test
    void anUnreadableRoutesFileFailsNamingTheProperty() {
        String missing = dir.resolve("no-such.yaml").toString();
        assertThatThrownBy(() -> EmbeddedRelay.routes(missing, Map.of()))
                .isInstanceOf(OutboxPropertyException.class)
                .hasMessage("outbox.relay.routes-file: " + missing + ": no such routes file");
    }

    @Test
    void anUnknownRouteKindFailsNamingThePropertyAndThePlaceInTheFile() throws IOException {
        Path routes = file("routes.yaml", FILE.replace("- job: send-confirmation", "- task: send-confirmation"));
        assertThatThrownBy(() -> EmbeddedRelay.routes(routes.toString(), Map.of()))
                .isInstanceOf(OutboxPropertyException.class)
                .hasMessageStartingWith("outbox.relay.routes-file: " + routes + ": $.routes['order.placed'][0]")
                .hasMessageContaining("a route has exactly one of 'job' (a job route) or 'publish' (a publish route)");
    }

    @Test
    void aRouteGivenByTheFileAndByABeanFailsNamingTheBean() throws IOException {
        Routes same = Routes.builder()
                .job("order.placed", "send-confirmation", "emails", RetrySchedule.seconds(5), Duration.ofMinutes(5))
                .build();
        Map<String, Routes> beans = new LinkedHashMap<>();
        beans.put("confirmations", same);
        assertThatThrownBy(() -> EmbeddedRelay.routes(file("routes.yaml", FILE).toString(), beans))
                .isInstanceOf(OutboxPropertyException.class)
                .hasMessageStartingWith(
                        "the Routes bean 'confirmations': event type 'order.placed': route (send-confirmation to emails)"
                                + " is given twice");
    }

    @Test
    void theRelaysFieldsAreToldAsTheirProperties() {
        assertThat(EmbeddedRelay.property("maxInFlight")).isEqualTo("outbox.relay.max-in-flight");
        assertThat(EmbeddedRelay.property("sleep")).isEqualTo("outbox.relay.sleep");
        assertThat(EmbeddedRelay.property("notifyChannel")).isEqualTo("outbox.notify-channel");
    }

    @Test
    void theDefaultsOfTheRelaysPropertiesAreTheRelaysOwn() {
        OutboxProperties.Relay relay = new OutboxProperties().getRelay();

        assertThat(relay.isEnabled()).isFalse();
        assertThat(relay.getMaxQueueDepth()).isEqualTo(dev.outbox.relay.OutboxRelay.DEFAULT_MAX_QUEUE_DEPTH);
        assertThat(relay.getWakeupLinger())
                .isEqualTo(Duration.ofMillis(dev.outbox.relay.OutboxRelay.DEFAULT_WAKEUP_LINGER_MILLIS));
        assertThat(relay.getGaugeInterval())
                .isEqualTo(Duration.ofSeconds(dev.outbox.relay.OutboxRelay.DEFAULT_GAUGE_INTERVAL_SECONDS));
    }
}
