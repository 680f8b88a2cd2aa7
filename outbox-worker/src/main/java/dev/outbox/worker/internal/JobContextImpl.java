package dev.outbox.worker.internal;

import dev.outbox.worker.JobContext;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** The context handed to a handler: values read from the database before the call. */
final class JobContextImpl implements JobContext {

    private final DeliveryRow row;
    private final UUID dispatchId;
    private final DeliveryQueries queries;
    private final @Nullable String traceparent;

    JobContextImpl(DeliveryRow row, UUID dispatchId, DeliveryQueries queries) {
        this.row = row;
        this.dispatchId = dispatchId;
        this.queries = queries;
        this.traceparent = row.traceparent(); // the event's, as recorded: never a message's claim
    }

    @Override
    public Optional<String> traceparent() {
        return Optional.ofNullable(traceparent);
    }

    @Override
    public Optional<String> tracestate() {
        return Optional.ofNullable(row.tracestate());
    }

    @Override
    public UUID eventId() {
        return row.eventId();
    }

    @Override
    public UUID deliveryId() {
        return row.deliveryId();
    }

    @Override
    public UUID dispatchId() {
        return dispatchId;
    }

    @Override
    public int attempt() {
        return row.attempts();
    }

    @Override
    public boolean lastAttempt() {
        return row.lastAttempt();
    }

    @Override
    public String jobType() {
        return row.jobType();
    }

    @Override
    public String eventType() {
        return row.eventType();
    }

    @Override
    public String queue() {
        return row.queue();
    }

    @Override
    public boolean isCurrentAttempt() {
        return queries.isCurrent(row.deliveryId(), dispatchId);
    }

    @Override
    public String toString() {
        return "JobContext[delivery " + row.deliveryId() + ", dispatch " + dispatchId + ", attempt " + row.attempts()
                + "]";
    }
}
