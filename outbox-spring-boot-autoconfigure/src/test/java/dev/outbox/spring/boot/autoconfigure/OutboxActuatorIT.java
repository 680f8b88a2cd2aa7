package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.admin.AdminFixture;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The actuator's {@code outbox} health and endpoint over HTTP, in a real Boot web application on the
 * real PostgreSQL, with rows of every status written straight into the tables. The same source runs on
 * Boot 4.0 and 3.5 (there with outbox-spring-boot3-health's indicator).
 */
class OutboxActuatorIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private static final String[] ACTUATOR = {
        "management.endpoints.web.exposure.include=health,outbox", "management.endpoint.health.show-details=always"
    };

    private static ConfigurableApplicationContext readOnly;
    private static ConfigurableApplicationContext writable;
    private static AdminFixture rows;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {}

    @BeforeAll
    static void startApplications() {
        readOnly = BootApps.startWeb(db, App.class, ACTUATOR);
        writable = BootApps.startWeb(db, App.class, concat(ACTUATOR, "outbox.endpoint.write-enabled=true"));
        rows = new AdminFixture(db.dataSource(), db.tables());
    }

    @AfterAll
    static void stopApplications() {
        for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] {readOnly, writable}) {
            if (context != null) {
                context.close();
            }
        }
    }

    @BeforeEach
    void emptyTheOutbox() {
        rows.mapped.deleteFrom(dev.outbox.schema.Tables.OUTBOX_DELIVERIES).execute();
        rows.mapped.deleteFrom(dev.outbox.schema.Tables.OUTBOX_EVENTS).execute();
    }

    /** A pending delivery to {@code queue} that has been ready for {@code age}. */
    private static UUID pending(String queue, Duration age) {
        Instant readySince = Instant.now().minus(age);
        UUID event = rows.event("order.placed", "{}", readySince, true);
        // the fixture makes a pending delivery available (and created) 60 s before its "at"
        return rows.delivery(
                event,
                OutboxDeliveryStatus.pending,
                "send-confirmation",
                queue,
                null,
                null,
                readySince.plusSeconds(60));
    }

    private static UUID failed(String queue) {
        return rows.failed(
                "order.placed",
                "send-confirmation",
                queue,
                "timeout",
                Instant.now().minusSeconds(30));
    }

    @Test
    void theHealthIsUpWhileTheBacklogIsYoungerThanTheThreshold() throws Exception {
        pending("emails", Duration.ofMinutes(1));

        Answer health = get(readOnly, "/actuator/health/outbox");

        assertThat(health.status()).as(health.text()).isEqualTo(200);
        assertThat(health.json().get("status").asText()).isEqualTo("UP");
        JsonNode backlog = health.json().get("details").get("backlog");
        assertThat(backlog.get("status").asText()).isEqualTo("UP");
        assertThat(backlog.get("oldestReadySeconds").asDouble()).isBetween(50.0, 300.0);
        assertThat(backlog.get("thresholdSeconds").asDouble()).isEqualTo(300.0);
        assertThat(backlog.get("pending").asLong()).isEqualTo(1);
    }

    @Test
    void theHealthGoesDownWhenAPendingDeliveryIsOlderThanTheThreshold() throws Exception {
        pending("emails", Duration.ofMinutes(1));
        assertThat(get(readOnly, "/actuator/health/outbox").json().get("status").asText())
                .isEqualTo("UP");

        pending("emails", Duration.ofMinutes(10));
        Answer health = get(readOnly, "/actuator/health/outbox");

        assertThat(health.status()).as(health.text()).isEqualTo(503);
        assertThat(health.json().get("status").asText()).isEqualTo("DOWN");
        JsonNode backlog = health.json().get("details").get("backlog");
        assertThat(backlog.get("status").asText()).isEqualTo("DOWN");
        assertThat(backlog.get("oldestReadySeconds").asDouble()).isGreaterThan(590.0);
        assertThat(backlog.get("pending").asLong()).isEqualTo(2);
        assertThat(backlog.get("readyPending").asLong()).isEqualTo(2);
        assertThat(get(readOnly, "/actuator/health").json().get("status").asText())
                .isEqualTo("DOWN");
    }

    @Test
    void theEndpointShowsTheStatusOfTheStatusCommand() throws Exception {
        pending("emails", Duration.ofMinutes(2));
        failed("sms");

        Answer status = get(readOnly, "/actuator/outbox");

        assertThat(status.status()).as(status.text()).isEqualTo(200);
        assertThat(status.json().get("queues").findValuesAsText("name")).containsExactlyInAnyOrder("emails", "sms");
        assertThat(status.json().get("failuresByReason").get("timeout").asLong())
                .isEqualTo(1);
        assertThat(status.json().get("oldestReadySeconds").asDouble()).isGreaterThan(100.0);
        assertThat(status.json().get("unroutedEvents").asLong()).isZero();
        assertThat(status.json().has("blockedKeysByRoute")).isTrue();
    }

    @Test
    void aPostChangesNothingWhileWritesAreOff() throws Exception {
        UUID failed = failed("emails");

        Answer requeue = post(readOnly, "/actuator/outbox/requeue", "{\"ids\": \"" + failed + "\"}");
        Answer onTheEndpoint = post(readOnly, "/actuator/outbox", "{\"ids\": \"" + failed + "\"}");

        assertThat(requeue.status()).as(requeue.text()).isBetween(400, 499);
        assertThat(onTheEndpoint.status()).as(onTheEndpoint.text()).isBetween(400, 499);
        assertThat(rows.status(failed)).isEqualTo(OutboxDeliveryStatus.failed);
    }

    @Test
    void requeuesAFailedDeliveryByIdWhenWritesAreOn() throws Exception {
        UUID failed = failed("emails");
        UUID other = failed("sms");

        Answer requeue = post(writable, "/actuator/outbox/requeue", "{\"ids\": \"" + failed + "\"}");

        assertThat(requeue.status()).as(requeue.text()).isEqualTo(200);
        assertThat(requeue.json().get("deliveries").asInt()).isEqualTo(1);
        assertThat(requeue.json().get("dryRun").asBoolean()).isFalse();
        assertThat(rows.status(failed)).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(rows.status(other)).isEqualTo(OutboxDeliveryStatus.failed);
    }

    @Test
    void aDryRunCountsAndChangesNothing() throws Exception {
        UUID failed = failed("emails");

        Answer requeue = post(writable, "/actuator/outbox/requeue", "{\"queue\": \"emails\", \"dryRun\": true}");

        assertThat(requeue.status()).as(requeue.text()).isEqualTo(200);
        assertThat(requeue.json().get("dryRun").asBoolean()).isTrue();
        assertThat(requeue.json().get("deliveries").asInt()).isEqualTo(1);
        assertThat(rows.status(failed)).isEqualTo(OutboxDeliveryStatus.failed);
    }

    @Test
    void aRequeueWithoutAFilterNeedsAll() throws Exception {
        UUID failed = failed("emails");

        Answer refused = post(writable, "/actuator/outbox/requeue", "{}");
        assertThat(refused.status()).as(refused.text()).isEqualTo(400);
        assertThat(rows.status(failed)).isEqualTo(OutboxDeliveryStatus.failed);

        Answer all = post(writable, "/actuator/outbox/requeue", "{\"all\": true}");
        assertThat(all.status()).as(all.text()).isEqualTo(200);
        assertThat(rows.status(failed)).isEqualTo(OutboxDeliveryStatus.pending);
    }

    @Test
    void aBadIdIsABadRequestThatChangesNothing() throws Exception {
        UUID failed = failed("emails");

        Answer refused = post(writable, "/actuator/outbox/requeue", "{\"ids\": \"" + failed + ",not-a-uuid\"}");

        assertThat(refused.status()).as(refused.text()).isEqualTo(400);
        assertThat(rows.status(failed)).isEqualTo(OutboxDeliveryStatus.failed);
    }

    record Answer(int status, String text) {
        JsonNode json() throws IOException {
            return JSON.readTree(text);
        }
    }

    private static Answer get(ConfigurableApplicationContext context, String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(context, path)).GET());
    }

    private static Answer post(ConfigurableApplicationContext context, String path, String body) throws Exception {
        return send(HttpRequest.newBuilder(uri(context, path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private static Answer send(HttpRequest.Builder request) throws Exception {
        HttpResponse<String> response =
                HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body());
    }

    private static URI uri(ConfigurableApplicationContext context, String path) {
        return URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path);
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
