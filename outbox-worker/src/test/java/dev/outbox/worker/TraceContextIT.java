package dev.outbox.worker;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.outbox.api.EventType;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxDsl;
import dev.outbox.delivery.internal.DeliveryLog;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The trace of the request that recorded an event continues in the job: {@code record} stores the
 * current span's traceparent, the relay carries it in the message, and the worker's CONSUMER span
 * around the handler is that span's child, with its ids in the MDC during the handler only.
 */
class TraceContextIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    static final InMemorySpanExporter spans = InMemorySpanExporter.create();
    static final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(spans))
                    .build())
            .build();

    private final DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    private final Outbox outbox =
            Outbox.builder().tables(db.tables()).notifications(false).build();

    @AfterAll
    static void closeSdk() {
        otel.close();
    }

    private void relayOnce(String queue) {
        try (OutboxRelay relay = OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .routes(Routes.builder()
                        .route(
                                "order.placed",
                                Route.job("ping", queue, RetrySchedule.seconds(1), Duration.ofSeconds(60)))
                        .build())
                .notifications(false)
                .build()) {
            relay.runOnce();
        }
    }

    private OutboxDeliveryStatus statusOf(UUID eventId) {
        return OutboxDsl.mapped(dsl, db.tables())
                .select(OUTBOX_DELIVERIES.STATUS)
                .from(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.EVENT_ID.eq(eventId))
                .fetchOne(OUTBOX_DELIVERIES.STATUS);
    }

    private String storedTraceparent(UUID eventId) {
        return OutboxDsl.mapped(dsl, db.tables())
                .select(OUTBOX_EVENTS.TRACEPARENT)
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.eq(eventId))
                .fetchOne(OUTBOX_EVENTS.TRACEPARENT);
    }

    @Test
    @SuppressWarnings("try") // the scope makes the span current while recording, never read
    void theSpanThatRecordedTheEventIsTheParentOfTheWorkersConsumerSpanAndItsIdsAreInTheMdcDuringTheHandler()
            throws Exception {
        String queue = rabbit.queue("traced");
        Span request = otel.getTracer("test").spanBuilder("POST /orders").startSpan();
        UUID eventId;
        try (Scope ignored = request.makeCurrent()) {
            eventId = dsl.transactionResult(tx -> outbox.record(tx.dsl(), new OrderPlaced(1)));
        } finally {
            request.end();
        }
        SpanContext recorded = request.getSpanContext();
        assertThat(storedTraceparent(eventId))
                .isEqualTo("00-" + recorded.getTraceId() + "-" + recorded.getSpanId() + "-"
                        + recorded.getTraceFlags().asHex());

        List<Object> seen = new CopyOnWriteArrayList<>();
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        logged.start();
        root.addAppender(logged);
        try (OutboxWorker worker = OutboxWorker.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .shutdownHook(false)
                .queue(queue, 1, 10)
                .openTelemetry(otel)
                .handler("ping", OrderPlaced.class, (event, context) -> {
                    seen.add(context.traceparent());
                    seen.add(Span.current().getSpanContext());
                    seen.add(MDC.get("trace_id") + " " + MDC.get("span_id"));
                    throw new RetryableOutboxException("once"); // the retry's WARNING is logged after the span ended
                })
                .build()) {
            relayOnce(queue);
            worker.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> statusOf(eventId) == OutboxDeliveryStatus.pending);
        } finally {
            root.detachAppender(logged);
        }

        SpanData consumer = spans.getFinishedSpanItems().stream()
                .filter(s -> s.getKind() == SpanKind.CONSUMER)
                .findFirst()
                .orElseThrow();
        assertThat(consumer.getTraceId()).isEqualTo(recorded.getTraceId());
        assertThat(consumer.getParentSpanId()).isEqualTo(recorded.getSpanId());
        assertThat(consumer.getName()).isEqualTo("process " + queue);
        assertThat(consumer.getAttributes().asMap().toString())
                .contains("outbox.job.type=ping", "messaging.destination.name=" + queue);
        assertThat(consumer.getStatus().getDescription()).isEqualTo(RetryableOutboxException.class.getName());

        SpanContext inHandler = (SpanContext) seen.get(1);
        assertThat(seen.get(0)).isEqualTo(Optional.of(storedTraceparent(eventId)));
        assertThat(inHandler.getSpanId())
                .as("the consumer span is current in the handler")
                .isEqualTo(consumer.getSpanId());
        assertThat(seen.get(2)).isEqualTo(consumer.getTraceId() + " " + consumer.getSpanId());

        List<ILoggingEvent> retryLines = logged.list.stream()
                .filter(e -> e.getThreadName().startsWith("outbox-worker-" + queue)
                        && eventId.toString().equals(e.getMDCPropertyMap().get(DeliveryLog.MDC_EVENT_ID)))
                .toList();
        assertThat(retryLines).as("the worker's own lines about the job").isNotEmpty();
        for (ILoggingEvent line : retryLines) {
            Map<String, String> mdc = line.getMDCPropertyMap();
            assertThat(mdc).as("MDC of '%s'", line.getFormattedMessage()).doesNotContainKeys("trace_id", "span_id");
        }
    }

    @Test
    void aTracerOfTheBuildersOwnGetsTheRecordedTraceAndEndsItsSpanOnTheHandlersThreadWithTheFailure() throws Exception {
        String queue = rabbit.queue("own-tracer");
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        UUID eventId = dsl.transactionResult(tx -> outbox.record(
                tx.dsl(),
                dev.outbox.api.NewEvent.of(new OrderPlaced(2))
                        .withTraceparent(traceparent)
                        .withTracestate("congo=t61")));

        ThreadLocal<String> current = new ThreadLocal<>();
        List<Object> seen = new CopyOnWriteArrayList<>();
        JobTracer tracer = job -> {
            seen.add(job.traceparent().orElse("none") + " " + job.tracestate().orElse("none") + " " + job.queue() + " "
                    + job.jobType());
            current.set("span of " + job.eventId());
            Thread started = Thread.currentThread();
            return failure -> {
                seen.add((failure == null ? "none" : failure.getClass().getName()) + " "
                        + (Thread.currentThread() == started));
                current.remove();
            };
        };
        try (OutboxWorker worker = OutboxWorker.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables())
                .shutdownHook(false)
                .queue(queue, 1, 10)
                .tracer(tracer)
                .handler("ping", OrderPlaced.class, (event, context) -> {
                    seen.add(String.valueOf(current.get()));
                    throw new RetryableOutboxException("once");
                })
                .build()) {
            relayOnce(queue);
            worker.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> statusOf(eventId) == OutboxDeliveryStatus.pending);
        }
        assertThat(seen)
                .containsExactly(
                        traceparent + " congo=t61 " + queue + " ping",
                        "span of " + eventId,
                        RetryableOutboxException.class.getName() + " true");
    }

    @Test
    void aTracerAndAnOpenTelemetryTogetherAreRefused() {
        OutboxWorker.Builder both = OutboxWorker.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .queue(rabbit.queue("both"), 1, 10)
                .tracer(JobTracer.NONE)
                .openTelemetry(otel)
                .handler("ping", OrderPlaced.class, (event, context) -> {});
        org.assertj.core.api.Assertions.assertThatThrownBy(both::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("tracer or openTelemetry: set at most one of them");
    }
}
