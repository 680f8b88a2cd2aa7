package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.outbox.api.EventType;
import dev.outbox.api.Outbox;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.MeterDocs;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.PromQl;
import dev.outbox.worker.WorkerFixture.Sent;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Grafana dashboard and the alert rules chart only series that the documented worker and recording
 * meters produce in Prometheus' format, and the dashboard charts each of them: the series are taken from a
 * real {@link PrometheusMeterRegistry} after real jobs and a real {@code record}, not written by hand.
 * (The relay's series are outbox-relay's DashboardSeriesIT's.)
 */
class WorkerDashboardSeriesIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    static final PostgresSchemaExtension db = fixture.db;

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    static Set<String> series;
    static Set<String> meters;

    @BeforeAll
    static void everyWorkerAndRecordingMeterInAPrometheusRegistry() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Outbox outbox = Outbox.builder()
                .tables(fixture.tables())
                .meterRegistry(registry)
                .build();
        DSL.using(db.dataSource(), SQLDialect.POSTGRES).transaction(tx -> outbox.record(tx.dsl(), new OrderPlaced(0)));

        String queue = fixture.queue("dashboard");
        try (OutboxWorker worker = fixture.worker()
                .queue(queue, 2, 10)
                .meterRegistry(registry)
                .handler("job", OrderPlaced.class, (event, context) -> {
                    if (event.orderId() == 2) {
                        throw new IllegalStateException("broken");
                    }
                })
                .build()) {
            worker.start();
            Sent completes = fixture.dispatched(new OrderPlaced(1), "job", queue, List.of(60));
            Sent fails = fixture.dispatched(new OrderPlaced(2), "job", queue, List.of(60));
            fixture.publish(completes);
            fixture.publish(fails);
            fixture.publishRaw(queue, "not json".getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> fixture.status(completes.deliveryId()) == OutboxDeliveryStatus.completed
                            && fixture.status(fails.deliveryId()) == OutboxDeliveryStatus.failed
                            && registry.find("outbox.worker.messages.dropped").counter() != null);
        }
        meters = registry.getMeters().stream()
                .map(m -> m.getId().getName())
                .filter(n -> n.startsWith("outbox.worker.") || n.startsWith("outbox.events."))
                .collect(Collectors.toCollection(TreeSet::new));
        series = registry.scrape()
                .lines()
                .filter(l -> !l.startsWith("#") && !l.isBlank())
                .map(l -> l.split("[{ ]", 2)[0])
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void everyDocumentedWorkerAndRecordingMeterIsRegistered() {
        Set<String> documented = MeterDocs.documented().keySet().stream()
                .filter(n -> n.startsWith("outbox.worker.") || n.startsWith("outbox.events."))
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(meters).isEqualTo(documented);
    }

    @Test
    void theDashboardChartsOnlySeriesOfTheseMetersAndEachOfThem() throws Exception {
        JsonNode dashboard = new ObjectMapper()
                .readTree(docs().resolve("grafana/outbox-dashboard.json").toFile());
        List<String> exprs = new ArrayList<>();
        dashboard.findValues("expr").forEach(e -> exprs.add(e.asText()));
        Set<String> used = ours(PromQl.series(exprs));

        assertThat(used).isNotEmpty();
        assertThat(series).containsAll(used);
        for (String meter : meters) {
            String base = meter.replace('.', '_');
            assertThat(used).as("a panel of %s", meter).anyMatch(s -> s.equals(base) || s.startsWith(base + "_"));
        }
    }

    @Test
    void theAlertRulesUseOnlySeriesOfTheseMeters() throws Exception {
        JsonNode rules = new YAMLMapper()
                .readTree(docs().resolve("prometheus/outbox-alerts.yml").toFile());
        List<String> exprs = new ArrayList<>();
        rules.findValues("expr").forEach(e -> exprs.add(e.asText()));
        List<String> alerts = new ArrayList<>();
        rules.findValues("alert").forEach(a -> alerts.add(a.asText()));
        assertThat(alerts).contains("OutboxJobsFailing");

        assertThat(series).containsAll(ours(PromQl.series(exprs)));
    }

    static Set<String> ours(Set<String> used) {
        return used.stream()
                .filter(s -> s.startsWith("outbox_worker_") || s.startsWith("outbox_events_"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    static Path docs() {
        return MeterDocs.file().getParent();
    }
}
