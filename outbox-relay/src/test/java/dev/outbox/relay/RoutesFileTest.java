package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RoutesFileTest {

    @TempDir
    Path dir;

    private static final Routes EXPECTED = Routes.builder()
            .job(
                    "order.placed",
                    "send-confirmation",
                    "emails",
                    RetrySchedule.seconds(5, 30, 120),
                    Duration.ofSeconds(300))
            .publish("order.placed", "order-events", "orders", "order.placed", List.of(), Duration.ofSeconds(60))
            .job(
                    "order.cancelled",
                    "refund",
                    "payments",
                    RetrySchedule.seconds(5, 15, 45, 135, 405, 1215),
                    Duration.ofSeconds(120))
            .build();

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    private static void assertSameRoutes(Routes actual) {
        assertThat(actual.eventTypes()).containsExactlyInAnyOrderElementsOf(EXPECTED.eventTypes());
        for (String type : EXPECTED.eventTypes()) {
            assertThat(actual.of(type)).as(type).containsExactlyElementsOf(EXPECTED.of(type));
        }
    }

    @Test
    void readsAYamlFile() throws IOException {
        Path file = write("routes.yaml", """
                # routes of the shop
                routes:
                  order.placed:
                    - job: send-confirmation
                      queue: emails
                      retryDelaysSeconds: [5, 30, 120]
                      deliveryTimeoutSeconds: 300
                    - publish: order-events
                      exchange: orders
                      routingKey: order.placed
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 60
                  order.cancelled:
                    - job: refund
                      queue: payments
                      retry:
                        exponential: {initialSeconds: 5, factor: 3, capSeconds: 3600, retries: 6}
                      deliveryTimeoutSeconds: 120
                """);
        assertSameRoutes(Routes.fromFile(file));
    }

    @Test
    void readsAYmlFile() throws IOException {
        Path file = write("routes.YML", """
                routes:
                  a: [{job: j, queue: q, retryDelaysSeconds: [], deliveryTimeoutSeconds: 1}]
                """);
        assertThat(Routes.fromFile(file).of("a"))
                .containsExactly(Route.job("j", "q", List.of(), Duration.ofSeconds(1)));
    }

    @Test
    void readsAJsonFile() throws IOException {
        Path file = write("routes.json", """
                {"routes": {
                  "order.placed": [
                    {"job": "send-confirmation", "queue": "emails", "retryDelaysSeconds": [5, 30, 120], "deliveryTimeoutSeconds": 300},
                    {"publish": "order-events", "exchange": "orders", "routingKey": "order.placed",
                     "retryDelaysSeconds": [], "deliveryTimeoutSeconds": 60}
                  ],
                  "order.cancelled": [
                    {"job": "refund", "queue": "payments",
                     "retry": {"exponential": {"initialSeconds": 5, "factor": 3, "capSeconds": 3600, "retries": 6}},
                     "deliveryTimeoutSeconds": 120}
                  ]
                }}
                """);
        assertSameRoutes(Routes.fromFile(file));
    }

    private AbstractThrowableAssert<?, ? extends Throwable> assertRefused(String name, String text) throws IOException {
        Path file = write(name, text);
        return assertThatThrownBy(() -> Routes.fromFile(file))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageStartingWith(file.toString());
    }

    @Test
    void namesTheLineOfAYamlSyntaxError() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  order.placed:
                    - job: send-confirmation
                      queue: [emails
                      deliveryTimeoutSeconds: 300
                """)
                .hasMessageContaining("not valid YAML")
                .hasMessageMatching("(?s).* at line [56], column \\d+.*");
    }

    @Test
    void namesTheLineOfAJsonSyntaxError() throws IOException {
        assertRefused("routes.json", """
                {"routes": {
                  "order.placed": [
                    {"job": "send-confirmation", "queue": "emails",, "deliveryTimeoutSeconds": 300}
                  ]
                }}
                """)
                .hasMessageContaining("not valid JSON")
                .hasMessageContaining(" at line 3, column");
    }

    @Test
    void namesThePathAndEventTypeOfABadDelay() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  order.placed:
                    - job: a
                      queue: q
                      retryDelaysSeconds: [5]
                      deliveryTimeoutSeconds: 300
                    - job: b
                      queue: q
                      retryDelaysSeconds: [0, 5]
                      deliveryTimeoutSeconds: 300
                """)
                .hasMessageContaining(
                        "$.routes['order.placed'][1].retryDelaysSeconds[0]: must be a positive whole number of seconds, got 0")
                .hasMessageContaining("(event type 'order.placed')");
    }

    @Test
    void refusesAFractionalOrTextualDelay() throws IOException {
        assertRefused("r1.json", """
                {"routes": {"e": [{"job": "j", "queue": "q", "retryDelaysSeconds": [1.5], "deliveryTimeoutSeconds": 3}]}}
                """)
                .hasMessageContaining("$.routes['e'][0].retryDelaysSeconds[0]")
                .hasMessageContaining("event type 'e'");
        assertRefused("r2.json", """
                {"routes": {"e": [{"job": "j", "queue": "q", "retryDelaysSeconds": ["5"], "deliveryTimeoutSeconds": 3}]}}
                """).hasMessageContaining("$.routes['e'][0].retryDelaysSeconds[0]");
        assertRefused("r3.json", """
                {"routes": {"e": [{"job": "j", "queue": "q", "retryDelaysSeconds": 5, "deliveryTimeoutSeconds": 3}]}}
                """).hasMessageContaining("$.routes['e'][0].retryDelaysSeconds: must be a list");
    }

    @Test
    void readsTheOrderingOfARoute() throws IOException {
        Path file = write("ordered.yaml", """
                routes:
                  order.placed:
                    - job: a
                      queue: q
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 60
                      ordered: true
                    - job: b
                      queue: q
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 60
                      ordered: skip
                    - publish: c
                      exchange: orders
                      routingKey: placed
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 60
                      ordered: block
                    - job: d
                      queue: q
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 60
                      ordered: false
                """);
        assertThat(Routes.fromFile(file).of("order.placed"))
                .extracting(Route::ordering)
                .containsExactly(Ordering.BLOCK, Ordering.SKIP, Ordering.BLOCK, Ordering.UNORDERED);
        assertRefused("ordered-bad.yaml", """
                routes:
                  order.placed:
                    - job: a
                      queue: q
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 60
                      ordered: sometimes
                """)
                .hasMessageContaining(
                        "$.routes['order.placed'][0].ordered: must be true, false, 'block' or 'skip', got 'sometimes'")
                .hasMessageContaining("(event type 'order.placed')");
    }

    @Test
    void namesThePathAndEventTypeOfABadTimeout() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  order.placed:
                    - job: a
                      queue: q
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 0
                """)
                .hasMessageContaining(
                        "$.routes['order.placed'][0].deliveryTimeoutSeconds: must be a positive whole number")
                .hasMessageContaining("(event type 'order.placed')");
        assertRefused("routes2.yaml", """
                routes:
                  order.placed:
                    - job: a
                      queue: q
                      retryDelaysSeconds: []
                """)
                .hasMessageContaining(
                        "$.routes['order.placed'][0].deliveryTimeoutSeconds: must be a whole number, got nothing");
    }

    @Test
    void namesThePathAndEventTypeOfAnEmptyQueue() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  order.placed:
                    - job: a
                      queue: ""
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 5
                """)
                .hasMessageContaining("$.routes['order.placed'][0].queue: must be a non-empty string")
                .hasMessageContaining("(event type 'order.placed')");
    }

    @Test
    void namesThePathOfABadJobType() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  order.placed:
                    - job: "send confirmation"
                      queue: q
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 5
                """)
                .hasMessageContaining("$.routes['order.placed'][0].job: must match")
                .hasMessageContaining("(event type 'order.placed')");
    }

    @Test
    void refusesAnUnknownField() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  order.placed:
                    - job: a
                      queue: q
                      retryDelays: [5]
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 5
                """)
                .hasMessageContaining("$.routes['order.placed'][0]: unknown field 'retryDelays'")
                .hasMessageContaining("(event type 'order.placed')");
        assertRefused("top.yaml", """
                routes: {}
                route: {}
                """).hasMessageContaining("$: unknown field 'route'");
        assertRefused("exp.yaml", """
                routes:
                  e:
                    - job: a
                      queue: q
                      retry: {exponential: {initialSeconds: 5, factor: 3, capSeconds: 60, retries: 2, jitter: 1}}
                      deliveryTimeoutSeconds: 5
                """)
                .hasMessageContaining("$.routes['e'][0].retry.exponential: unknown field 'jitter'");
    }

    @Test
    void refusesABadExponentialSchedule() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  e:
                    - job: a
                      queue: q
                      retry: {exponential: {initialSeconds: 5, factor: 0.5, capSeconds: 60, retries: 2}}
                      deliveryTimeoutSeconds: 5
                """)
                .hasMessageContaining("$.routes['e'][0].retry.exponential: factor")
                .hasMessageContaining("(event type 'e')");
    }

    @Test
    void refusesBothOrNeitherOfDelaysAndRetry() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  e: [{job: a, queue: q, deliveryTimeoutSeconds: 5}]
                """)
                .hasMessageContaining("$.routes['e'][0]: give exactly one of 'retryDelaysSeconds'");
    }

    @Test
    void refusesARouteThatIsBothOrNeitherJobAndPublish() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  e: [{queue: q, retryDelaysSeconds: [], deliveryTimeoutSeconds: 5}]
                """).hasMessageContaining("$.routes['e'][0]: a route has exactly one of 'job'");
    }

    @Test
    void refusesAnEventTypeWithNoRoutes() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  order.placed: []
                """)
                .hasMessageContaining("$.routes['order.placed']: needs a non-empty list of routes")
                .hasMessageContaining("(event type 'order.placed')");
        assertRefused("routes2.yaml", """
                routes:
                  order.placed:
                """)
                .hasMessageContaining("$.routes['order.placed']: needs a non-empty list of routes");
    }

    @Test
    void refusesAnEventTypeGivenTwice() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  order.placed: [{job: a, queue: q, retryDelaysSeconds: [], deliveryTimeoutSeconds: 5}]
                  order.placed: [{job: b, queue: q, retryDelaysSeconds: [], deliveryTimeoutSeconds: 5}]
                """).hasMessageContaining("order.placed").hasMessageContaining("line 3");
    }

    @Test
    void refusesTheSameRouteTwice() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  e:
                    - {job: a, queue: q, retryDelaysSeconds: [], deliveryTimeoutSeconds: 5}
                    - {job: a, queue: q, retryDelaysSeconds: [1], deliveryTimeoutSeconds: 5}
                """).hasMessageContaining("$.routes['e']").hasMessageContaining("given twice");
    }

    @Test
    void refusesAFileWithoutRoutes() throws IOException {
        assertRefused("empty.yaml", "").hasMessageContaining("top level must be a mapping");
        assertRefused("list.json", "[]").hasMessageContaining("top level must be a mapping");
        assertRefused("noroutes.yaml", "routes: [1]").hasMessageContaining("$.routes: must be a mapping");
    }

    @Test
    void refusesAMissingFile() {
        Path missing = dir.resolve("nowhere.yaml");
        assertThatThrownBy(() -> Routes.fromFile(missing))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessage(missing + ": no such routes file");
    }

    @Test
    void refusesAFileWithAnotherExtension() throws IOException {
        assertRefused("routes.txt", "routes: {}").hasMessageContaining("ends in .yaml, .yml or .json");
    }

    @Test
    void refusesAQueueOver255BytesNamingThePathAndTheLimit() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  order.placed:
                    - job: a
                      queue: ok
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 5
                    - job: b
                      queue: bad_%s
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 5
                """.formatted("é".repeat(200)))
                .hasMessageContaining(
                        "$.routes['order.placed'][1].queue: must be at most 255 bytes in UTF-8 (an AMQP short string), got 404 bytes")
                .hasMessageContaining("(event type 'order.placed')");
    }

    @Test
    void refusesARoutingKeyOrExchangeOver255BytesNamingThePath() throws IOException {
        assertRefused("rk.json", """
                {"routes": {"e": [{"publish": "p", "exchange": "x", "routingKey": "%s", "retryDelaysSeconds": [],
                  "deliveryTimeoutSeconds": 5}]}}
                """.formatted("ж".repeat(128)))
                .hasMessageContaining("$.routes['e'][0].routingKey: must be at most 255 bytes in UTF-8");
        assertRefused("ex.json", """
                {"routes": {"e": [{"publish": "p", "exchange": "%s", "routingKey": "k", "retryDelaysSeconds": [],
                  "deliveryTimeoutSeconds": 5}]}}
                """.formatted("ж".repeat(128)))
                .hasMessageContaining("$.routes['e'][0].exchange: must be at most 255 bytes in UTF-8");
    }

    @Test
    void refusesAQueueReservedByTheBroker() throws IOException {
        assertRefused("routes.yaml", """
                routes:
                  e: [{job: a, queue: amq.direct, retryDelaysSeconds: [], deliveryTimeoutSeconds: 5}]
                """)
                .hasMessageContaining("$.routes['e'][0].queue: must not begin with 'amq.' (reserved by the broker)");
    }

    @Test
    void refusesAbsurdDelaysAndTimeouts() throws IOException {
        assertRefused("delay.yaml", """
                routes:
                  e: [{job: a, queue: q, retryDelaysSeconds: [5, 2147483647], deliveryTimeoutSeconds: 5}]
                """)
                .hasMessageContaining(
                        "$.routes['e'][0].retryDelaysSeconds[1]: must be at most 2592000 seconds (30 days), got 2147483647");
        assertRefused("timeout.yaml", """
                routes:
                  e: [{job: a, queue: q, retryDelaysSeconds: [], deliveryTimeoutSeconds: 2147483647}]
                """)
                .hasMessageContaining(
                        "$.routes['e'][0].deliveryTimeoutSeconds: must be at most 604800 seconds (7 days), got 2147483647");
        assertRefused("cap.yaml", """
                routes:
                  e:
                    - job: a
                      queue: q
                      retry: {exponential: {initialSeconds: 5, factor: 3, capSeconds: 2147483647, retries: 2}}
                      deliveryTimeoutSeconds: 5
                """)
                .hasMessageContaining(
                        "$.routes['e'][0].retry.exponential: capSeconds must be at most 2592000 (30 days)");
    }

    @Test
    void refusesAFileThatNamesNoEventType() throws IOException {
        assertRefused("empty-routes.yaml", "routes: {}\n")
                .hasMessageEndingWith("$.routes: names no event type; a routes file needs at least one route");
        assertRefused("empty-routes.json", "{\"routes\": {}}").hasMessageContaining("$.routes: names no event type");
    }

    @Test
    void refusesASecondYamlDocument() throws IOException {
        assertRefused("two.yaml", """
                routes:
                  e: [{job: a, queue: q, retryDelaysSeconds: [], deliveryTimeoutSeconds: 5}]
                ---
                routes:
                  f: [{job: b, queue: q, retryDelaysSeconds: [], deliveryTimeoutSeconds: 5}]
                """)
                .hasMessageEndingWith("at line 4: a second document; a routes file holds exactly one");
    }

    @Test
    void refusesASecondJsonDocument() throws IOException {
        assertRefused("two.json", """
                {"routes": {"e": [{"job": "a", "queue": "q", "retryDelaysSeconds": [], "deliveryTimeoutSeconds": 5}]}}
                {"routes": {}}
                """).hasMessageContaining("at line 2: a second document");
    }

    @Test
    void refusesAYamlAliasInsteadOfReadingTheAnchorsName() throws IOException {
        // Jackson's YAML parser reads *a as the text "a": the second route would go to a queue named 'a'
        assertRefused("alias.yaml", """
                routes:
                  e:
                    - job: a
                      queue: &a bad_rq
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 5
                    - job: b
                      queue: *a
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 5
                """)
                .hasMessageEndingWith(
                        "at line 8: YAML anchors and aliases (*a) are not supported in a routes file: write each value out");
        assertRefused("alias-only.yaml", """
                routes:
                  e:
                    - job: b
                      queue: *a
                      retryDelaysSeconds: []
                      deliveryTimeoutSeconds: 5
                """).hasMessageContaining(" at line");
    }

    @Test
    void refusesAnchorsOnMappingsAndListsAndMergeKeys() throws IOException {
        assertRefused("merge.yaml", """
                defaults: &d {retryDelaysSeconds: [5], deliveryTimeoutSeconds: 5}
                routes:
                  e:
                    - <<: *d
                      job: a
                      queue: q
                """).hasMessageContaining("at line 1: YAML anchors and aliases (&d)");
        assertRefused("list.yaml", """
                routes:
                  e: &r
                    - {job: a, queue: q, retryDelaysSeconds: [], deliveryTimeoutSeconds: 5}
                  f: *r
                """).hasMessageContaining("at line 2: YAML anchors and aliases (&r)");
        assertRefused("delays.yaml", """
                routes:
                  e:
                    - {job: a, queue: q, retryDelaysSeconds: &s [5, 10], deliveryTimeoutSeconds: 5}
                    - {job: b, queue: q, retryDelaysSeconds: *s, deliveryTimeoutSeconds: 5}
                """).hasMessageContaining("at line 3: YAML anchors and aliases (&s)");
    }

    @Test
    void printsABadEventTypeEscaped() throws IOException {
        assertRefused("type.json", """
                {"routes": {"a\\nERROR forged": [{"job": "a", "queue": "q", "retryDelaysSeconds": [], "deliveryTimeoutSeconds": 5}]}}
                """)
                .hasMessageContaining("$.routes['a\\u000aERROR forged']: an event type must match")
                .hasMessageNotContaining("\n");
    }
}
