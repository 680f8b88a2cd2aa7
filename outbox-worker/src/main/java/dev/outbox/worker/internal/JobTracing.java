package dev.outbox.worker.internal;

import dev.outbox.delivery.DeliveryMessage;
import org.jspecify.annotations.Nullable;

/**
 * The trace around a handler. {@link #NONE} when the OpenTelemetry API is not on the class path;
 * {@link OtelJobTracing}, the only class of the worker that names an OpenTelemetry type, otherwise: it
 * is loaded only after {@link #of} found the API, so that the worker runs without it.
 */
public interface JobTracing {

    /** No span, no trace ids in the MDC. */
    JobTracing NONE = (queue, message) -> failure -> {};

    /** A span around one handler run, current on the handler's thread until {@link #end}. */
    @FunctionalInterface
    interface HandlerSpan {
        /** Ends the span (an error status naming {@code failure}'s class, never its message) and clears the MDC. */
        void end(@Nullable Throwable failure);
    }

    /** Starts the span of the handler of {@code message}, read from {@code queue}. */
    HandlerSpan start(String queue, DeliveryMessage message);

    /**
     * Tracing through {@code openTelemetry} (an {@code io.opentelemetry.api.OpenTelemetry}, typed
     * {@code Object} here so that this interface loads without the API); with null, through
     * {@code GlobalOpenTelemetry} when the API is on the class path, else {@link #NONE}.
     */
    static JobTracing of(@Nullable Object openTelemetry) {
        if (openTelemetry != null) {
            return OtelJobTracing.of(openTelemetry);
        }
        try {
            Class.forName("io.opentelemetry.api.GlobalOpenTelemetry", false, JobTracing.class.getClassLoader());
            Class.forName("io.opentelemetry.context.Context", false, JobTracing.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return NONE;
        }
        return OtelJobTracing.global();
    }
}
