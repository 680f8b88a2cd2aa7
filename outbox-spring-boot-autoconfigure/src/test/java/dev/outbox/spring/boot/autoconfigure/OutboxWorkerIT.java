package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The worker of the handler beans in a real Boot application, on the real PostgreSQL and RabbitMQ,
 * connected through Boot's {@code spring.rabbitmq.*}: an event recorded in a Spring transaction,
 * dispatched by one pass of the real relay, is run and completed by the bean; a retryable failure
 * retries; under Boot's Micrometer Tracing the job's span continues the trace current when the event
 * was recorded; a shutdown during a job ends within the context's shutdown phase and marks the job
 * {@code worker_died}, as the worker's own shutdown does.
 */
class OutboxWorkerIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    static final String CONFIRMATIONS = rabbit.queue("confirmations");
    static final String SLOW = rabbit.queue("slow");
    static final String TRACED = rabbit.queue("traced");

    @EventType("worker.order.placed")
    record OrderPlaced(String orderId) {}

    /** An event of its own for the slow job, so that the other tests' events never reach it. */
    @EventType("worker.report.requested")
    record ReportRequested(String orderId) {}

    /** Fails its first call with a retryable error, then succeeds. */
    static final class Mailer {
        final AtomicInteger calls = new AtomicInteger();
        final List<String> sent = new java.util.concurrent.CopyOnWriteArrayList<>();

        void send(OrderPlaced order) {
            if (order.orderId().startsWith("flaky") && calls.incrementAndGet() == 1) {
                throw new RetryableOutboxException("mail server unavailable");
            }
            sent.add(order.orderId());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class JobService {
        @Bean
        Mailer mailer() {
            return new Mailer();
        }

        // snippet:spring-boot-handler
        @Bean
        OutboxJobHandler<OrderPlaced> sendConfirmation(Mailer mailer) {
            return OutboxJobHandler.of(
                    "send-confirmation", OrderPlaced.class, CONFIRMATIONS, (order, context) -> mailer.send(order));
        }
        // end-snippet
    }

    /** The job service with an {@code OpenTelemetry} bean of its own, as Micrometer Tracing's OpenTelemetry bridge declares one. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class TracedJobService extends JobService {
        static final InMemorySpanExporter spans = InMemorySpanExporter.create();

        @Bean
        OpenTelemetry openTelemetry() {
            return OpenTelemetrySdk.builder()
                    .setTracerProvider(SdkTracerProvider.builder()
                            .addSpanProcessor(SimpleSpanProcessor.create(spans))
                            .build())
                    .build();
        }
    }

    /** An event of its own for the job that reads the current span. */
    @EventType("worker.order.traced")
    record OrderTraced(String orderId) {}

    /**
     * Boot's own Micrometer Tracing on the OpenTelemetry bridge (the tracer, the observation registry and
     * the {@code OpenTelemetry} bean all Boot's), its spans exported to memory; the handler notes the
     * current span as Micrometer Tracing's {@code Tracer} gives it.
     */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class MicrometerTracedJobService {
        static final Map<String, TraceContext> seen = new ConcurrentHashMap<>();

        @Bean
        InMemorySpanExporter spanExporter() {
            return InMemorySpanExporter.create();
        }

        @Bean
        EventDesk eventDesk(DSLContext dsl, Outbox outbox) {
            return new EventDesk(dsl, outbox);
        }

        @Bean
        OutboxJobHandler<OrderTraced> tracedConfirmation(Tracer tracer) {
            return OutboxJobHandler.of("traced-confirmation", OrderTraced.class, TRACED, (order, context) -> {
                Span current = tracer.currentSpan();
                if (current != null) {
                    seen.put(order.orderId(), current.context());
                }
            });
        }
    }

    /** A handler that holds its job until released, for the shutdown. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class SlowJobService {
        static final CountDownLatch started = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);

        @Bean
        OutboxJobHandler<ReportRequested> slowJob() {
            return OutboxJobHandler.of("slow-job", ReportRequested.class, SLOW, (report, context) -> {
                started.countDown();
                release.await(60, TimeUnit.SECONDS);
            });
        }
    }

    /** Boot's own keys for the test broker: the worker reads them, not a URI of ours. */
    private static String[] withBroker(String... extra) {
        return BootApps.withBroker(rabbit, extra);
    }

    private static void record(ConfigurableApplicationContext context, Object event) {
        DSLContext dsl = context.getBean(DSLContext.class);
        Outbox outbox = context.getBean(Outbox.class);
        new TransactionTemplate(context.getBean(PlatformTransactionManager.class))
                .executeWithoutResult(status -> outbox.record(dsl, event));
    }

    /** One pass of the real relay: routes the recorded events and dispatches the ready deliveries. */
    private static void relayOnce() {
        try (OutboxRelay relay = OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .routes(Routes.builder()
                        .route(
                                "worker.order.placed",
                                Route.job(
                                        "send-confirmation",
                                        CONFIRMATIONS,
                                        RetrySchedule.seconds(1),
                                        Duration.ofSeconds(60)))
                        .route(
                                "worker.report.requested",
                                Route.job("slow-job", SLOW, RetrySchedule.seconds(1), Duration.ofSeconds(60)))
                        .route(
                                "worker.order.traced",
                                Route.job(
                                        "traced-confirmation",
                                        TRACED,
                                        RetrySchedule.seconds(1),
                                        Duration.ofSeconds(60)))
                        .build())
                .notifications(false)
                .build()) {
            relay.runOnce();
        }
    }

    /** Status, attempts and failure reason of the delivery of {@code orderId}'s event for {@code jobType}. */
    private static Record delivery(String orderId, String jobType) {
        return DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                .fetchOne(
                        "select d.status::text as status, d.attempts, d.failure_reason from "
                                + db.schema() + ".outbox_deliveries d join " + db.schema()
                                + ".outbox_events e on e.id = d.event_id"
                                + " where e.payload->>'orderId' = ? and d.job_type = ?",
                        orderId,
                        jobType);
    }

    private static String status(String orderId, String jobType) {
        Record row = delivery(orderId, jobType);
        return row == null ? "none" : row.get("status", String.class);
    }

    @Test
    void aHandlerBeanRunsAndCompletesTheJobOfARecordedEvent() {
        try (ConfigurableApplicationContext context = BootApps.start(db, JobService.class, withBroker())) {
            assertThat(context.getBean(OutboxWorkerLifecycle.class).isRunning()).isTrue();
            record(context, new OrderPlaced("o-1"));
            relayOnce();

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> status("o-1", "send-confirmation").equals("completed"));
            assertThat(context.getBean(Mailer.class).sent).containsExactly("o-1");
            assertThat(delivery("o-1", "send-confirmation").get("attempts", Integer.class))
                    .isEqualTo(1);
        }
    }

    @Test
    void theJobSpanGoesToTheApplicationsOpenTelemetry() {
        try (ConfigurableApplicationContext context = BootApps.start(db, TracedJobService.class, withBroker())) {
            record(context, new OrderPlaced("o-traced"));
            relayOnce();

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> status("o-traced", "send-confirmation").equals("completed"));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> TracedJobService.spans.getFinishedSpanItems().stream()
                            .anyMatch(span -> span.getName().equals("process " + CONFIRMATIONS)));
        }
    }

    @Test
    void underBootsMicrometerTracingTheJobContinuesTheTraceOfItsRecording() {
        try (ConfigurableApplicationContext context = BootApps.start(
                db, MicrometerTracedJobService.class, withBroker("management.tracing.sampling.probability=1.0"))) {
            Tracer tracer = context.getBean(Tracer.class);
            TraceContext recording = Observation.createNotStarted(
                            "place-order", context.getBean(ObservationRegistry.class))
                    .observe(() -> {
                        context.getBean(EventDesk.class).place(new OrderTraced("o-micrometer"));
                        return tracer.currentSpan().context();
                    });
            relayOnce();

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> status("o-micrometer", "traced-confirmation").equals("completed"));
            assertThat(context.getBean(SdkTracerProvider.class)
                            .forceFlush()
                            .join(10, TimeUnit.SECONDS)
                            .isSuccess())
                    .isTrue();
            Map<String, SpanData> spans = context.getBean(InMemorySpanExporter.class).getFinishedSpanItems().stream()
                    .collect(Collectors.toMap(SpanData::getSpanId, Function.identity()));
            SpanData job = spans.values().stream()
                    .filter(span -> span.getName().equals("process " + TRACED))
                    .findFirst()
                    .orElseThrow();
            assertThat(spans).containsKey(recording.spanId());

            assertThat(job.getTraceId()).isEqualTo(recording.traceId());
            assertThat(ancestors(job, spans)).contains(recording.spanId());
            TraceContext inHandler = MicrometerTracedJobService.seen.get("o-micrometer");
            assertThat(inHandler).isNotNull();
            assertThat(inHandler.traceId()).isEqualTo(recording.traceId());
            assertThat(inHandler.spanId()).isEqualTo(job.getSpanId());
        }
    }

    /** The span ids above {@code span}, its parent first, as far as the finished spans go. */
    private static List<String> ancestors(SpanData span, Map<String, SpanData> spans) {
        List<String> chain = new ArrayList<>();
        for (String parent = span.getParentSpanId();
                !chain.contains(parent) && spans.containsKey(parent);
                parent = spans.get(parent).getParentSpanId()) {
            chain.add(parent);
        }
        return chain;
    }

    @Test
    void aRetryableFailureOfTheHandlerBeanRetriesWithTheNextDelay() {
        try (ConfigurableApplicationContext context = BootApps.start(db, JobService.class, withBroker())) {
            record(context, new OrderPlaced("flaky-1"));
            relayOnce();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> status("flaky-1", "send-confirmation").equals("pending"));
            assertThat(delivery("flaky-1", "send-confirmation").get("attempts", Integer.class))
                    .isEqualTo(1);

            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(300))
                    .until(() -> {
                        relayOnce(); // the retry is dispatched once its delay of 1 s has passed
                        return status("flaky-1", "send-confirmation").equals("completed");
                    });
            assertThat(delivery("flaky-1", "send-confirmation").get("attempts", Integer.class))
                    .isEqualTo(2);
            assertThat(context.getBean(Mailer.class).calls).hasValue(2); // the failed call and the retry
            assertThat(context.getBean(Mailer.class).sent).containsExactly("flaky-1");
        }
    }

    @Test
    void aShutdownDuringAJobEndsWithinTheShutdownPhaseAndMarksTheJobWorkerDied() throws Exception {
        ConfigurableApplicationContext context =
                BootApps.start(db, SlowJobService.class, withBroker("spring.lifecycle.timeout-per-shutdown-phase=4s"));
        try {
            record(context, new ReportRequested("o-slow"));
            relayOnce();
            assertThat(SlowJobService.started.await(20, TimeUnit.SECONDS)).isTrue();

            long start = System.nanoTime();
            context.close();
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            // grace: 4 s less half of it; the job is marked before the phase ends and the DataSource closes
            assertThat(took).isBetween(Duration.ofMillis(1_900), Duration.ofSeconds(4));
            Record row = delivery("o-slow", "slow-job");
            assertThat(row.get("status", String.class)).isEqualTo("failed");
            assertThat(row.get("failure_reason", String.class)).isEqualTo("worker_died");
        } finally {
            SlowJobService.release.countDown();
            context.close();
        }
    }
}
