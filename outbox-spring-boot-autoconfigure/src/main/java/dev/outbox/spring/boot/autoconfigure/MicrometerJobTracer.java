package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.worker.JobContext;
import dev.outbox.worker.JobTracer;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The worker's job spans through Micrometer Tracing's {@code Tracer} (the Brave bridge's): a CONSUMER
 * span around each handler, child of the traceparent recorded with the event, current on the handler's
 * thread, with its ids in the MDC under the worker's own keys ({@link JobTracer#MDC_TRACE_ID});
 * attributes as the OpenTelemetry spans have them. A failure is tagged with its class, never its
 * message. Loaded only with the worker and Micrometer Tracing on the class path.
 */
final class MicrometerJobTracer implements JobTracer {

    private final Tracer tracer;

    MicrometerJobTracer(Tracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public JobTracer.JobSpan start(JobContext job) {
        Span.Builder builder =
                tracer.spanBuilder().name("process " + job.queue()).kind(Span.Kind.CONSUMER);
        io.micrometer.tracing.@Nullable TraceContext parent = MicrometerTracing.parent(tracer, job.traceparent());
        if (parent != null) {
            builder.setParent(parent);
        } else {
            builder.setNoParent();
        }
        Span span = builder.tag("messaging.system", "rabbitmq")
                .tag("messaging.operation.name", "process")
                .tag("messaging.operation.type", "process")
                .tag("messaging.destination.name", job.queue())
                .tag("messaging.message.id", job.dispatchId().toString())
                .tag("outbox.event.id", job.eventId().toString())
                .tag("outbox.event.type", job.eventType())
                .tag("outbox.delivery.id", job.deliveryId().toString())
                .tag("outbox.job.type", job.jobType())
                .tag("outbox.attempt", job.attempt())
                .start();
        Tracer.SpanInScope scope = tracer.withSpan(span);
        String traceId = span.context().traceId();
        boolean valid = !traceId.isEmpty();
        if (valid) {
            MDC.put(MDC_TRACE_ID, traceId);
            MDC.put(MDC_SPAN_ID, span.context().spanId());
        }
        return failure -> {
            try {
                if (failure != null) {
                    // the class only: an exception's message may hold the event's data
                    span.tag("error.type", failure.getClass().getName());
                    span.tag("error", failure.getClass().getName());
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
