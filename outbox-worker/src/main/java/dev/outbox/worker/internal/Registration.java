package dev.outbox.worker.internal;

import dev.outbox.worker.JobHandler;

/** A handler registered for a job type, with the event class it takes. */
public record Registration<T>(String jobType, Class<T> eventClass, JobHandler<T> handler) {

    void invoke(Object event, JobContextImpl context) throws Exception {
        handler.handle(eventClass.cast(event), context);
    }
}
