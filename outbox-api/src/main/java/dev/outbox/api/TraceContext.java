package dev.outbox.api;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The W3C trace context of the caller, recorded with an event that names none of its own. The
 * default ({@link Outbox.Builder#traceContext}) is the current OpenTelemetry span's context when the
 * OpenTelemetry API is on the class path, else {@link #NONE}; another tracer (say, Micrometer
 * Tracing's Brave bridge) gives its own. Called on the recording thread, once per {@code record} call.
 */
@FunctionalInterface
public interface TraceContext {

    /** No trace context. */
    TraceContext NONE = () -> null;

    /**
     * A W3C {@code traceparent} (version-traceid-parentid-flags in lower-case hex) and its
     * {@code tracestate} (at most 512 characters, or null). The constructor throws
     * {@code IllegalArgumentException} when either breaks that rule, naming which.
     */
    record Headers(String traceparent, @Nullable String tracestate) {
        public Headers {
            Objects.requireNonNull(traceparent, "TraceContext.Headers.traceparent");
            NewEvent.checkTrace(traceparent, tracestate, "TraceContext.Headers");
        }
    }

    /** The current span's context when it is valid, else null. */
    @Nullable
    Headers current();
}
