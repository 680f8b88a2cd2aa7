package dev.outbox.api.internal;

import dev.outbox.api.TraceContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The current OpenTelemetry context written as W3C headers by the API's own propagator. */
final class OtelTraceContext implements TraceContext {

    /** What the tracestate column and {@code NewEvent} take. */
    static final int MAX_TRACESTATE = 512;

    private OtelTraceContext() {}

    static TraceContext create() {
        return new OtelTraceContext();
    }

    @Override
    public @Nullable Headers current() {
        Map<String, String> headers = new HashMap<>(4);
        // writes nothing for an invalid span context (no span, or the no-op API without an SDK)
        W3CTraceContextPropagator.getInstance().inject(Context.current(), headers, Map::put);
        String traceparent = headers.get("traceparent");
        if (traceparent == null) {
            return null;
        }
        String tracestate = headers.get("tracestate");
        return new Headers(
                traceparent,
                tracestate == null || tracestate.isEmpty() || tracestate.length() > MAX_TRACESTATE ? null : tracestate);
    }
}
