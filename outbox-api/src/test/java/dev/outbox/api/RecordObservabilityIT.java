package dev.outbox.api;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.testing.MeterDocs;
import dev.outbox.testing.PostgresSchemaExtension;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What recording adds for an SRE: the recorded-events counter, and the caller's trace context stored with the event. */
class RecordObservabilityIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    @EventType("order.shipped")
    record OrderShipped(long orderId) {}

    static final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(InMemorySpanExporter.create()))
                    .build())
            .build();

    private final DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Outbox outbox = Outbox.builder()
            .tables(db.tables())
            .notifications(false)
            .meterRegistry(registry)
            .build();

    @AfterAll
    static void closeSdk() {
        otel.close();
    }

    private double recorded(String type) {
        var counter = registry.find("outbox.events.recorded").tag("type", type).counter();
        return counter == null ? 0 : counter.count();
    }

    private Record2<String, String> traceOf(UUID eventId) {
        return OutboxDsl.mapped(dsl, db.tables())
                .select(OUTBOX_EVENTS.TRACEPARENT, OUTBOX_EVENTS.TRACESTATE)
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.eq(eventId))
                .fetchOne();
    }

    @Test
    void countsTheEventsEachSuccessfulStatementWroteByType() {
        dsl.transaction(
                tx -> outbox.recordAll(tx.dsl(), List.of(new OrderPlaced(1), new OrderPlaced(2), new OrderShipped(1))));
        dsl.transaction(tx -> outbox.record(tx.dsl(), new OrderShipped(2)));

        assertThat(recorded("order.placed")).isEqualTo(2);
        assertThat(recorded("order.shipped")).isEqualTo(2);
    }

    @Test
    void countsNothingForARefusedOrSkippedEvent() {
        UUID id = UUID.randomUUID();
        dsl.transaction(
                tx -> outbox.record(tx.dsl(), NewEvent.of(new OrderPlaced(3)).withId(id)));
        assertThatThrownBy(() -> dsl.transaction(tx ->
                        outbox.record(tx.dsl(), NewEvent.of(new OrderPlaced(3)).withId(id))))
                .isInstanceOf(DuplicateEventException.class);
        dsl.transaction(tx ->
                outbox.recordIfAbsent(tx.dsl(), NewEvent.of(new OrderPlaced(3)).withId(id)));

        assertThat(recorded("order.placed")).isEqualTo(1);
    }

    @Test
    void everyMeterRecordingRegistersIsDocumentedWithItsType() {
        dsl.transaction(tx -> outbox.record(tx.dsl(), new OrderPlaced(4)));
        assertThat(registry.getMeters()).isNotEmpty();
        for (Meter meter : registry.getMeters()) {
            assertThat(MeterDocs.documented())
                    .containsEntry(
                            meter.getId().getName(),
                            meter.getId().getType().name().toLowerCase(Locale.ROOT));
        }
    }

    @Test
    void storesTheCurrentSpansTraceparentAndTracestate() {
        Span parent = Span.wrap(SpanContext.create(
                "0af7651916cd43dd8448eb211c80319c",
                "b7ad6b7169203331",
                io.opentelemetry.api.trace.TraceFlags.getSampled(),
                TraceState.builder().put("congo", "t61rcWkgMzE").build()));
        Span request = otel.getTracer("test")
                .spanBuilder("POST /orders")
                .setParent(io.opentelemetry.context.Context.root().with(parent))
                .startSpan();
        UUID eventId;
        try (Scope ignored = request.makeCurrent()) {
            eventId = dsl.transactionResult(tx -> outbox.record(tx.dsl(), new OrderPlaced(5)));
        } finally {
            request.end();
        }
        assertThat(traceOf(eventId).value1())
                .isEqualTo("00-0af7651916cd43dd8448eb211c80319c-"
                        + request.getSpanContext().getSpanId() + "-01");
        assertThat(traceOf(eventId).value2()).isEqualTo("congo=t61rcWkgMzE");
    }

    @Test
    void anExplicitTraceparentWinsOverTheCurrentSpan() {
        String explicit = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        Span request = otel.getTracer("test").spanBuilder("POST /orders").startSpan();
        UUID eventId;
        try (Scope ignored = request.makeCurrent()) {
            eventId = dsl.transactionResult(tx ->
                    outbox.record(tx.dsl(), NewEvent.of(new OrderPlaced(6)).withTraceparent(explicit)));
        } finally {
            request.end();
        }
        assertThat(traceOf(eventId).value1()).isEqualTo(explicit);
        assertThat(traceOf(eventId).value2()).isNull();
    }

    @Test
    void anEventRecordedOutsideAnySpanHasNoTraceContext() {
        UUID eventId = dsl.transactionResult(tx -> outbox.record(tx.dsl(), new OrderPlaced(7)));
        assertThat(traceOf(eventId).value1()).isNull();
        assertThat(traceOf(eventId).value2()).isNull();
    }

    @Test
    void aTraceContextOfTheBuildersOwnGivesTheTraceInsteadOfOpenTelemetry() {
        String theirs = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        Outbox withOwn = Outbox.builder()
                .tables(db.tables())
                .notifications(false)
                .traceContext(() -> new TraceContext.Headers(theirs, "vendor=x"))
                .build();
        Span request = otel.getTracer("test").spanBuilder("POST /orders").startSpan();
        UUID eventId;
        try (Scope ignored = request.makeCurrent()) {
            eventId = dsl.transactionResult(tx -> withOwn.record(tx.dsl(), new OrderPlaced(8)));
        } finally {
            request.end();
        }
        assertThat(traceOf(eventId).value1()).isEqualTo(theirs);
        assertThat(traceOf(eventId).value2()).isEqualTo("vendor=x");
    }

    @Test
    void traceContextNoneRecordsNoTraceInsideASpan() {
        Outbox without = Outbox.builder()
                .tables(db.tables())
                .notifications(false)
                .traceContext(TraceContext.NONE)
                .build();
        Span request = otel.getTracer("test").spanBuilder("POST /orders").startSpan();
        UUID eventId;
        try (Scope ignored = request.makeCurrent()) {
            eventId = dsl.transactionResult(tx -> without.record(tx.dsl(), new OrderPlaced(9)));
        } finally {
            request.end();
        }
        assertThat(traceOf(eventId).value1()).isNull();
    }

    @Test
    void traceHeadersThatBreakTheW3cRuleAreRefusedNamingTheField() {
        assertThatThrownBy(
                        () -> new TraceContext.Headers("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TraceContext.Headers.traceparent must be a W3C traceparent");
        assertThatThrownBy(() -> new TraceContext.Headers(
                        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=" + "v".repeat(511)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TraceContext.Headers.tracestate must be at most 512 characters");
    }
}
