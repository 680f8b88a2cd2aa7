package dev.outbox.api.internal;

import org.jspecify.annotations.Nullable;

/**
 * The W3C trace context of the caller, recorded with an event that names none of its own.
 * {@link #NONE} without the OpenTelemetry API on the class path; {@link OtelTraceContext}, the only
 * class of outbox-api that names an OpenTelemetry type, otherwise (loaded only after {@link #detect()}
 * found the API).
 */
public interface TraceContext {

    /** No trace context. */
    TraceContext NONE = () -> null;

    /** A W3C {@code traceparent} and {@code tracestate} (null when there is none or it is too long to store). */
    record Headers(String traceparent, @Nullable String tracestate) {}

    /** The current span's context when it is valid, else null. */
    @Nullable Headers current();

    /** The current OpenTelemetry span's context when the API is on the class path, else {@link #NONE}. */
    static TraceContext detect() {
        try {
            Class.forName("io.opentelemetry.context.Context", false, TraceContext.class.getClassLoader());
            Class.forName("io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator", false, TraceContext.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return NONE;
        }
        return OtelTraceContext.create();
    }
}
