package dev.outbox.worker;

import java.util.Optional;
import java.util.UUID;

/** What a handler knows about the delivery it is running. Valid during the handler call. */
public interface JobContext {

    UUID eventId();

    UUID deliveryId();

    /** This dispatch of the delivery; a result counts only while it is the current one. */
    UUID dispatchId();

    /** The attempt number, from 1. */
    int attempt();

    /** True when a failure of this attempt is final: the delivery has no retry left. */
    boolean lastAttempt();

    String jobType();

    String eventType();

    /** The queue the message came from. */
    String queue();

    /**
     * Asks the database whether this dispatch is still the current one (the delivery is dispatched
     * with this dispatch id). One cheap query; a job that works in pages calls it between pages and
     * stops when it returns false (the delivery timed out and was dispatched again, or was settled).
     */
    boolean isCurrentAttempt();

    /**
     * The W3C {@code traceparent} the event was recorded with, read from the event's row (never from
     * the message, whose body anyone with access to the queue can write); empty when it was recorded
     * without one. The worker's {@link JobTracer} runs the handler in a span that is a child of it: by
     * default, with the OpenTelemetry API on the class path, a CONSUMER span current on the handler's
     * thread ({@code Span.current()}), with {@code trace_id} and {@code span_id} in the MDC.
     */
    default Optional<String> traceparent() {
        return Optional.empty();
    }

    /** The W3C {@code tracestate} recorded beside {@link #traceparent()}, from the event's row; empty when there is none. */
    default Optional<String> tracestate() {
        return Optional.empty();
    }
}
