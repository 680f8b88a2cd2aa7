package dev.outbox.worker.internal;

import dev.outbox.worker.JobTracer;
import org.jspecify.annotations.Nullable;

/**
 * The worker's default tracer: {@link OtelJobTracing}, the only class of the worker that names an
 * OpenTelemetry type, loaded only after {@link #of} found the API, so that the worker runs without it.
 */
public final class JobTracers {

    private JobTracers() {}

    /**
     * Tracing through {@code openTelemetry} (an {@code io.opentelemetry.api.OpenTelemetry}, typed
     * {@code Object} here so that this class loads without the API); with null, through
     * {@code GlobalOpenTelemetry} when the API is on the class path, else {@link JobTracer#NONE}.
     */
    public static JobTracer of(@Nullable Object openTelemetry) {
        if (openTelemetry != null) {
            return OtelJobTracing.of(openTelemetry);
        }
        try {
            Class.forName("io.opentelemetry.api.GlobalOpenTelemetry", false, JobTracers.class.getClassLoader());
            Class.forName("io.opentelemetry.context.Context", false, JobTracers.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return JobTracer.NONE;
        }
        return OtelJobTracing.global();
    }
}
