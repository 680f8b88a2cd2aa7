package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import dev.outbox.api.EventType;
import dev.outbox.api.Outbox;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.RetryableOutboxException;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.MDC;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * Under Boot's Micrometer Tracing on the Brave bridge (no OpenTelemetry on the class path: its own
 * surefire execution, see the pom), recording stores the current span as a W3C traceparent and the
 * job's CONSUMER span continues it, current in the handler, its ids in the MDC; a failed attempt's span
 * names the exception's class, never its message.
 */
class BraveTracingIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    static final String QUEUE = rabbit.queue("brave");
    static final String SECRET = "card 4111 1111";

    @EventType("brave.order.placed")
    record OrderPlaced(String orderId) {}

    /** Boot's Brave tracing, its finished spans kept in memory; the handler fails once, then notes its span. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class BraveJobService {
        static final List<MutableSpan> finished = new CopyOnWriteArrayList<>();
        static final Map<String, String> seen = new ConcurrentHashMap<>();
        static final AtomicInteger calls = new AtomicInteger();

        @Bean
        SpanHandler keepFinishedSpans() {
            return new SpanHandler() {
                @Override
                public boolean end(brave.propagation.TraceContext context, MutableSpan span, Cause cause) {
                    finished.add(span);
                    return true;
                }
            };
        }

        /**
         * The finished spans named {@code name}, each as plain values (kind, traceId, parentId, id, the
         * tags, whole): Brave's types stay inside this class, which loads only with Brave there.
         */
        static List<Map<String, String>> finishedNamed(String name) {
            return finished.stream()
                    .filter(span -> name.equals(span.name()))
                    .map(span -> {
                        Map<String, String> values = new java.util.HashMap<>(span.tags());
                        values.put("kind", String.valueOf(span.kind()));
                        values.put("traceId", span.traceId());
                        values.put("parentId", String.valueOf(span.parentId()));
                        values.put("id", span.id());
                        values.put("whole", span.toString());
                        return values;
                    })
                    .toList();
        }

        @Bean
        EventDesk eventDesk(DSLContext dsl, Outbox outbox) {
            return new EventDesk(dsl, outbox);
        }

        @Bean
        OutboxJobHandler<OrderPlaced> braveConfirmation(Tracer tracer) {
            return OutboxJobHandler.of("brave-confirmation", OrderPlaced.class, QUEUE, (order, context) -> {
                if (calls.incrementAndGet() == 1) {
                    throw new RetryableOutboxException(SECRET);
                }
                Span current = tracer.currentSpan();
                seen.put(
                        "span",
                        current == null
                                ? "none"
                                : current.context().traceId() + " "
                                        + current.context().spanId());
                seen.put("mdc", MDC.get("trace_id") + " " + MDC.get("span_id"));
            });
        }
    }

    private static void relayOnce() {
        try (OutboxRelay relay = OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .routes(Routes.builder()
                        .route(
                                "brave.order.placed",
                                Route.job(
                                        "brave-confirmation", QUEUE, RetrySchedule.seconds(1), Duration.ofSeconds(60)))
                        .build())
                .notifications(false)
                .build()) {
            relay.runOnce();
        }
    }

    private static Record delivery(String orderId) {
        return DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                .fetchOne(
                        "select d.status::text as status, e.traceparent from "
                                + db.schema() + ".outbox_deliveries d join " + db.schema()
                                + ".outbox_events e on e.id = d.event_id"
                                + " where e.payload->>'orderId' = ?",
                        orderId);
    }

    @Test
    void theJobOnBootsBraveTracingContinuesTheTraceOfItsRecording() {
        ClassLoader loader = BraveTracingIT.class.getClassLoader();
        assumeTrue(
                ClassUtils.isPresent("brave.Tracer", loader)
                        && !ClassUtils.isPresent("io.opentelemetry.sdk.trace.SdkTracerProvider", loader),
                "runs in the surefire execution 'brave', with Brave and without OpenTelemetry's SDK");
        try (ConfigurableApplicationContext context = BootApps.start(
                db,
                BraveJobService.class,
                BootApps.withBroker(rabbit, "management.tracing.sampling.probability=1.0"))) {
            Tracer tracer = context.getBean(Tracer.class);
            assertThat(tracer.getClass().getName())
                    .as("Micrometer's tracer is Brave's")
                    .contains("Brave");
            TraceContext recording = Observation.createNotStarted(
                            "place-order", context.getBean(ObservationRegistry.class))
                    .observe(() -> {
                        context.getBean(EventDesk.class).place(new OrderPlaced("b-1"));
                        return tracer.currentSpan().context();
                    });
            assertThat(recording.traceId()).hasSize(32);
            assertThat(delivery("b-1")).isNull(); // not routed yet
            relayOnce();
            assertThat(delivery("b-1").get("traceparent", String.class))
                    .isEqualTo("00-" + recording.traceId() + "-" + recording.spanId() + "-01");

            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(300))
                    .until(() -> {
                        relayOnce(); // the retry is dispatched once its delay of 1 s has passed
                        return "completed".equals(delivery("b-1").get("status", String.class));
                    });
            await().atMost(Duration.ofSeconds(5)).until(() -> jobSpans().size() == 2);

            List<Map<String, String>> jobs = jobSpans();
            for (Map<String, String> job : jobs) {
                assertThat(job)
                        .containsEntry("kind", "CONSUMER")
                        .containsEntry("traceId", recording.traceId())
                        .containsEntry("outbox.job.type", "brave-confirmation")
                        .containsEntry("messaging.destination.name", QUEUE);
                assertThat(job.get("parentId"))
                        .as("the job's span is the recording span's child")
                        .isEqualTo(recording.spanId());
            }
            Map<String, String> failed = jobs.stream()
                    .filter(job -> job.containsKey("error.type"))
                    .findFirst()
                    .orElseThrow();
            assertThat(failed).containsEntry("error.type", RetryableOutboxException.class.getName());
            assertThat(failed.get("whole")).doesNotContain(SECRET);
            Map<String, String> completed = jobs.stream()
                    .filter(job -> !job.containsKey("error.type"))
                    .findFirst()
                    .orElseThrow();
            assertThat(BraveJobService.seen)
                    .containsEntry("span", recording.traceId() + " " + completed.get("id"))
                    .containsEntry("mdc", recording.traceId() + " " + completed.get("id"));
        }
    }

    private static List<Map<String, String>> jobSpans() {
        return BraveJobService.finishedNamed("process " + QUEUE);
    }
}
