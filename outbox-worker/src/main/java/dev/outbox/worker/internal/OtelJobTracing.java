package dev.outbox.worker.internal;

import dev.outbox.delivery.internal.DeliveryMessage;
import dev.outbox.worker.JobContext;
import dev.outbox.worker.JobTracer;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * A CONSUMER span around each handler, child of the W3C trace context recorded with the event (the
 * message's {@code traceparent} and {@code tracestate}), current on the handler's thread, with its ids
 * in the MDC as {@value JobTracer#MDC_TRACE_ID} and {@value JobTracer#MDC_SPAN_ID}. Attributes are the queue, the job and
 * event types and the ids; an error status names the exception's class, never its message.
 */
final class OtelJobTracing implements JobTracer {

    static final String INSTRUMENTATION = "dev.outbox.worker";

    private static final TextMapGetter<JobContext> TRACE_HEADERS = new TextMapGetter<>() {
        // deprecated with a default since OpenTelemetry 1.6x, abstract before: Boot 3.5's OpenTelemetry needs it
        @SuppressWarnings("deprecation")
        @Override
        public Iterable<String> keys(JobContext job) {
            List<String> keys = new ArrayList<>(2);
            if (job.traceparent().isPresent()) {
                keys.add(DeliveryMessage.HEADER_TRACEPARENT);
            }
            if (job.tracestate().isPresent()) {
                keys.add(DeliveryMessage.HEADER_TRACESTATE);
            }
            return keys;
        }

        @Override
        public @Nullable String get(@Nullable JobContext job, String key) {
            if (job == null) {
                return null;
            }
            return switch (key) {
                case DeliveryMessage.HEADER_TRACEPARENT -> job.traceparent().orElse(null);
                case DeliveryMessage.HEADER_TRACESTATE -> job.tracestate().orElse(null);
                default -> null;
            };
        }
    };

    /**
     * The tracer of the {@code OpenTelemetry} given, asked for once; null: {@code GlobalOpenTelemetry}'s,
     * asked for at each job (never read before the application could set it).
     */
    private final @Nullable Tracer given;

    private OtelJobTracing(@Nullable OpenTelemetry openTelemetry) {
        this.given = openTelemetry == null ? null : openTelemetry.getTracer(INSTRUMENTATION);
    }

    static JobTracer of(Object openTelemetry) {
        return new OtelJobTracing((OpenTelemetry) openTelemetry);
    }

    static JobTracer global() {
        return new OtelJobTracing(null);
    }

    private Tracer tracer() {
        // getOrNoop: an unset global stays settable by the application (get() would fix it to no-op)
        return given != null ? given : GlobalOpenTelemetry.getOrNoop().getTracer(INSTRUMENTATION);
    }

    @Override
    public JobTracer.JobSpan start(JobContext job) {
        Context parent = job.traceparent().isEmpty()
                ? Context.root()
                : W3CTraceContextPropagator.getInstance().extract(Context.root(), job, TRACE_HEADERS);
        String queue = job.queue();
        Span span = tracer().spanBuilder("process " + queue)
                .setParent(parent)
                .setSpanKind(SpanKind.CONSUMER)
                .setAttribute("messaging.system", "rabbitmq")
                .setAttribute("messaging.operation.name", "process")
                .setAttribute("messaging.operation.type", "process")
                .setAttribute("messaging.destination.name", queue)
                .setAttribute("messaging.message.id", job.dispatchId().toString())
                .setAttribute("outbox.event.id", job.eventId().toString())
                .setAttribute("outbox.event.type", job.eventType())
                .setAttribute("outbox.delivery.id", job.deliveryId().toString())
                .setAttribute("outbox.job.type", job.jobType())
                .setAttribute("outbox.attempt", (long) job.attempt())
                .startSpan();
        @SuppressWarnings("MustBeClosedChecker") // the returned end closes the scope, on the thread that opened it
        Scope scope = span.makeCurrent();
        SpanContext ids = span.getSpanContext();
        boolean valid = ids.isValid();
        if (valid) {
            MDC.put(MDC_TRACE_ID, ids.getTraceId());
            MDC.put(MDC_SPAN_ID, ids.getSpanId());
        }
        return failure -> {
            try {
                if (failure != null) {
                    span.setAttribute("error.type", failure.getClass().getName());
                    span.setStatus(StatusCode.ERROR, failure.getClass().getName());
                }
            } finally {
                scope.close();
                span.end();
                if (valid) {
                    MDC.remove(MDC_TRACE_ID);
                    MDC.remove(MDC_SPAN_ID);
                }
            }
        };
    }
}
