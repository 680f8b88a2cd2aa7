package dev.outbox.api.internal;

import dev.outbox.api.TraceContext;

/**
 * Finds the caller's trace context: {@link OtelTraceContext}, the only class of outbox-api that names
 * an OpenTelemetry type, loaded only after {@link #detect()} found the API.
 */
public final class TraceContexts {

    private TraceContexts() {}

    /** The current OpenTelemetry span's context when the API is on the class path, else {@link TraceContext#NONE}. */
    public static TraceContext detect() {
        try {
            Class.forName("io.opentelemetry.context.Context", false, TraceContexts.class.getClassLoader());
            Class.forName(
                    "io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator",
                    false,
                    TraceContexts.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return TraceContext.NONE;
        }
        return OtelTraceContext.create();
    }
}
