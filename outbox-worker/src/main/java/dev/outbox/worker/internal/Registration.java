package dev.outbox.worker.internal;

import dev.outbox.api.LogText;
import dev.outbox.worker.JobHandler;
import java.util.Map;
import java.util.Objects;

/** A handler registered for a job type, with the event class it takes. */
public record Registration<T>(String jobType, Class<T> eventClass, JobHandler<T> handler) {

    /**
     * Adds a registration to {@code handlers}, the checks of every builder that takes handlers
     * ({@code OutboxWorker}, {@code JobRunner}): no null, no blank job type, one handler per job type.
     */
    public static <T> void add(
            Map<String, Registration<?>> handlers, String jobType, Class<T> eventClass, JobHandler<T> handler) {
        Objects.requireNonNull(jobType, "jobType");
        Objects.requireNonNull(eventClass, "eventClass");
        Objects.requireNonNull(handler, "handler");
        if (jobType.isBlank()) {
            throw new IllegalArgumentException("jobType must not be blank");
        }
        if (handlers.putIfAbsent(jobType, new Registration<>(jobType, eventClass, handler)) != null) {
            throw new IllegalArgumentException("job type '" + LogText.of(jobType) + "' has a handler already");
        }
    }

    void invoke(Object event, JobContextImpl context) throws Exception {
        handler.handle(eventClass.cast(event), context);
    }
}
