package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.api.TraceContext;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Recording's trace context through Micrometer Tracing's {@code Tracer}, whichever bridge is under it:
 * the one Boot declares with the Brave bridge. (With the OpenTelemetry bridge the outbox takes the
 * {@code OpenTelemetry} bean instead, which keeps the {@code tracestate}.) The W3C {@code traceparent}
 * is written here and read back by {@link MicrometerJobTracer}, whatever propagation format the
 * application's tracer speaks on HTTP; {@code tracestate} is not carried. Loaded only when Micrometer
 * Tracing is on the class path.
 */
final class MicrometerTracing {

    /** version-traceid-parentid-flags, as recording stores it ({@code NewEvent}'s rule); version ff is invalid. */
    private static final Pattern TRACEPARENT =
            Pattern.compile("(?!ff)[0-9a-f]{2}-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");

    private static final Pattern HEX = Pattern.compile("[0-9a-f]+");
    private static final String NO_TRACE = "0".repeat(32);
    private static final String NO_SPAN = "0".repeat(16);

    private MicrometerTracing() {}

    /** The current span of {@code tracer} as a W3C traceparent, for recording. */
    static TraceContext recording(Tracer tracer) {
        return () -> {
            Span span = tracer.currentSpan();
            if (span == null) {
                return null;
            }
            io.micrometer.tracing.TraceContext ids = span.context();
            String traceId = ids.traceId().toLowerCase(Locale.ROOT);
            String spanId = ids.spanId().toLowerCase(Locale.ROOT);
            if (traceId.length() == 16) {
                traceId = "0".repeat(16) + traceId; // a 64-bit trace id, widened as W3C says
            }
            if (traceId.length() != 32
                    || spanId.length() != 16
                    || !HEX.matcher(traceId).matches()
                    || !HEX.matcher(spanId).matches()
                    || traceId.equals(NO_TRACE)
                    || spanId.equals(NO_SPAN)) {
                return null; // a no-op or invalid span: no trace to continue
            }
            return new TraceContext.Headers(
                    "00-" + traceId + "-" + spanId + (Boolean.TRUE.equals(ids.sampled()) ? "-01" : "-00"), null);
        };
    }

    /** The span context the traceparent names, or null when there is none or it is malformed. */
    static io.micrometer.tracing.@Nullable TraceContext parent(Tracer tracer, Optional<String> traceparent) {
        if (traceparent.isEmpty()) {
            return null;
        }
        Matcher m = TRACEPARENT.matcher(traceparent.get());
        if (!m.matches() || m.group(1).equals(NO_TRACE) || m.group(2).equals(NO_SPAN)) {
            return null;
        }
        boolean sampled = (Integer.parseInt(m.group(3), 16) & 1) == 1;
        return tracer.traceContextBuilder()
                .traceId(m.group(1))
                .spanId(m.group(2))
                .sampled(sampled)
                .build();
    }
}
