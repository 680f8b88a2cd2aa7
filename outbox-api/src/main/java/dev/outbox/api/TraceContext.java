package dev.outbox.api;

import org.jspecify.annotations.Nullable;

/**
 * The W3C trace context of the caller, recorded with an event that names none of its own.
 * {@link #NONE} without the OpenTelemetry API on the class path; the current OpenTelemetry span's
 * context otherwise.
 */
public interface TraceContext {

    /** No trace context. */
    TraceContext NONE = () -> null;

    /** A W3C {@code traceparent} and {@code tracestate} (null when there is none or it is too long to store). */
    record Headers(String traceparent, @Nullable String tracestate) {}

    /** The current span's context when it is valid, else null. */
    @Nullable Headers current();
}
