package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.rabbitmq.client.BuiltinExchangeType;
import dev.outbox.relay.Events.InvoiceSent;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.testing.MeterDocs;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PromQl;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Grafana dashboard and the alert rules chart only series that the documented relay meters (the worker's and
 * the recording API's are outbox-worker's WorkerDashboardSeriesIT's)
 * produce in Prometheus' format: the series are taken from a real {@link PrometheusMeterRegistry}
 * after passes that touch every meter, not written by hand.
 */
class DashboardSeriesIT {

    @RegisterExtension
    static final RelayFixture fixture = new RelayFixture();

    static Set<String> series;
    static Set<String> relayMeters;

    @BeforeAll
    static void everyRelayMeterInAPrometheusRegistry() throws Exception {
        String jobs = fixture.queue("jobs");
        String gone = fixture.queue("gone");
        String exchange = fixture.rabbit.exchange("copies");
        String copies = fixture.queue("copies");
        var ch = fixture.broker().channel();
        ch.exchangeDeclare(exchange, BuiltinExchangeType.FANOUT, true);
        ch.queueDeclare(copies, true, false, false, Map.of());
        ch.queueBind(copies, exchange, "");
        MutableClock clock = MutableClock.startingNow();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Tables tables = new Tables(fixture.db);
        try (OutboxRelay relay = fixture.relay(clock)
                .meterRegistry(registry)
                .gaugeInterval(Duration.ofSeconds(1))
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.job("confirm", jobs, List.of(), Duration.ofSeconds(60)),
                                Route.job("remind", jobs, List.of(), Duration.ofSeconds(60)))
                        .route(
                                "order.cancelled",
                                Route.job("refund", gone, List.of(), Duration.ofSeconds(60))
                                        .ordered())
                        .route("invoice.sent", Route.publish("copy", exchange, "", List.of(), Duration.ofSeconds(60)))
                        .build())
                .build()) {
            relay.runOnce(); // declares the queues
            ch.queueDelete(gone); // its publishes are returned: refused
            tables.record(new OrderPlaced(1, BigDecimal.ONE), new OrderCancelled(1), new InvoiceSent(1));
            relay.runOnce();
            // a worker picks up the confirm job (T2s); no worker takes the remind job
            tables.pickUp(clock, d -> d.getJobType().equals("confirm"));
            clock.advance(Duration.ofSeconds(60));
            relay.runOnce(); // the confirm job times out (T4), the remind dispatch times out unstarted (T4u)
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> registry.find("outbox.relay.deliveries.failed").gauges().stream()
                            .noneMatch(g -> Double.isNaN(g.value())));
            relayMeters = registry.getMeters().stream()
                    .map(m -> m.getId().getName())
                    .filter(n -> n.startsWith("outbox.relay."))
                    .collect(Collectors.toCollection(TreeSet::new));
            series = registry.scrape()
                    .lines()
                    .filter(l -> !l.startsWith("#") && !l.isBlank())
                    .map(l -> l.split("[{ ]", 2)[0])
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void everyDocumentedRelayMeterIsRegisteredAndNoOther() {
        Set<String> documented = MeterDocs.documented().keySet().stream()
                .filter(n -> n.startsWith("outbox.relay."))
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(relayMeters).isEqualTo(documented);
    }

    @Test
    void theDashboardChartsOnlySeriesOfTheDocumentedMetersAndEachOfThem() throws Exception {
        JsonNode dashboard = new ObjectMapper()
                .readTree(docs().resolve("grafana/outbox-dashboard.json").toFile());
        List<String> exprs = new ArrayList<>();
        dashboard.findValues("expr").forEach(e -> exprs.add(e.asText()));
        dashboard.findValues("definition").forEach(e -> exprs.add(e.asText()));
        assertThat(exprs).hasSizeGreaterThan(10);

        Set<String> used = relays(PromQl.series(exprs));

        assertThat(series).containsAll(used);
        for (String meter : relayMeters) {
            String base = meter.replace('.', '_');
            assertThat(used).as("a panel of %s", meter).anyMatch(s -> s.equals(base) || s.startsWith(base + "_"));
        }
    }

    @Test
    void theAlertRulesUseOnlySeriesOfTheDocumentedMeters() throws Exception {
        JsonNode rules = new YAMLMapper()
                .readTree(docs().resolve("prometheus/outbox-alerts.yml").toFile());
        List<String> exprs = new ArrayList<>();
        rules.findValues("expr").forEach(e -> exprs.add(e.asText()));
        assertThat(exprs).hasSizeGreaterThanOrEqualTo(4);
        List<String> alerts = new ArrayList<>();
        rules.findValues("alert").forEach(a -> alerts.add(a.asText()));
        assertThat(alerts).contains("OutboxReadyDeliveryWaiting", "OutboxPublishRefusals", "OutboxRelayNotReady");

        assertThat(series).containsAll(relays(PromQl.series(exprs)));
    }

    /** All but the worker's and the recording API's series, which outbox-worker's WorkerDashboardSeriesIT holds against its meters. */
    static Set<String> relays(Set<String> used) {
        return used.stream()
                .filter(s -> !s.startsWith("outbox_worker_") && !s.startsWith("outbox_events_"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void readsTheSeriesOfAnExpression() {
        assertThat(PromQl.series(List.of(
                        "histogram_quantile(0.99, sum by (le, queue) (rate(outbox_relay_confirm_latency_seconds_bucket"
                                + "{queue=~\"$queue\"}[$__rate_interval]))) / ignoring(x) a_b",
                        "label_values(outbox_relay_deliveries_pending, queue)")))
                .containsExactlyInAnyOrder(
                        "outbox_relay_confirm_latency_seconds_bucket", "a_b", "outbox_relay_deliveries_pending");
    }

    static Path docs() {
        return MeterDocs.file().getParent();
    }
}
