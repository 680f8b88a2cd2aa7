package dev.outbox.worker;

import org.jspecify.annotations.Nullable;

/**
 * The trace around each handler run. The default ({@link OutboxWorker.Builder#tracer}) starts an
 * OpenTelemetry CONSUMER span when the OpenTelemetry API is on the class path, else nothing; another
 * tracer (say, Micrometer Tracing's Brave bridge) gives its own. {@link #start} runs on the handler's
 * thread just before the handler and {@link JobSpan#end} just after it, on that thread, whatever the
 * handler did; a span made current in {@code start} is the handler's current span.
 */
@FunctionalInterface
public interface JobTracer {

    /** No span. */
    JobTracer NONE = job -> failure -> {};

    /** The MDC key of the handler span's trace id while the handler runs, for the worker's tracers and yours. */
    String MDC_TRACE_ID = "trace_id";
    /** The MDC key of the handler span's own id while the handler runs. */
    String MDC_SPAN_ID = "span_id";

    /** A span around one handler run, current on the handler's thread until {@link #end}. */
    @FunctionalInterface
    interface JobSpan {
        /**
         * Ends the span: {@code failure} is what the handler threw, or null. A tracer records its
         * class, never its message (which may hold the event's data).
         */
        void end(@Nullable Throwable failure);
    }

    /**
     * Starts the span of the handler of {@code job}: a child of {@link JobContext#traceparent()} (the
     * trace recorded with the event) when there is one.
     */
    JobSpan start(JobContext job);
}
