package dev.outbox.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The README's routes file is one the relay reads. */
class RoutesFileTest {

    static final Path ROUTES_FILE = Path.of("routes.yaml");

    @Test
    void routesEveryOrderPlacedToOneConfirmationJobOnTheEmailsQueue() {
        Routes routes = Routes.fromFile(ROUTES_FILE);
        assertThat(routes.eventTypes()).containsExactly("order.placed");
        assertThat(routes.of("order.placed"))
                .containsExactly(Route.job(
                        "send-confirmation",
                        "emails",
                        java.util.List.of(Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(120)),
                        Duration.ofSeconds(300)));
    }
}
