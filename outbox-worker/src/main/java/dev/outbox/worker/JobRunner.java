package dev.outbox.worker;

import dev.outbox.api.EventSerializer;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.worker.internal.DirectRun;
import dev.outbox.worker.internal.Registration;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * Runs the handlers of an {@link OutboxWorker} for deliveries that are already dispatched, in the
 * calling thread and without a broker: for tests ({@code outbox-testkit}'s {@code OutboxTestKit} uses it)
 * and tools. Production code uses {@link OutboxWorker}.
 *
 * <pre>{@code
 * JobRunner runner = JobRunner.builder()
 *         .dataSource(dataSource)
 *         .handler("send-confirmation", OrderPlaced.class, sendConfirmation)
 *         .build();
 * JobRun run = runner.run(deliveryId, dispatchId);
 * }</pre>
 *
 * <p>{@link #run} follows the worker's rules for one message: it requires the delivery dispatched
 * with that dispatch id (otherwise nothing runs, {@link JobRun.Outcome#NOT_CURRENT}), fails it
 * {@code unknown_job_type} without a handler and {@code undeserializable_event} when the event cannot be
 * read, calls the handler with a {@link JobContext}, then writes what the worker writes: completed on
 * a normal return; for {@link RetryableOutboxException} pending with the next delay or failed
 * {@code retries_exhausted}; failed {@code job_failed} for another exception, {@code worker_died} for an
 * {@link Error} (caught and reported in {@link JobRun#thrown()}, not rethrown). Each outcome is one
 * statement of outbox-delivery's state machine, committed at once.
 */
public final class JobRunner {

    private final DirectRun run;

    private JobRunner(DirectRun run) {
        this.run = run;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The job types with a handler. */
    public Set<String> jobTypes() {
        return run.jobTypes();
    }

    /** Runs the handler of the delivery's job type for this dispatch and writes the outcome; see the class documentation. */
    public JobRun run(UUID deliveryId, UUID dispatchId) {
        return run.run(
                Objects.requireNonNull(deliveryId, "deliveryId"), Objects.requireNonNull(dispatchId, "dispatchId"));
    }

    /** Settings of a {@link JobRunner}: those of {@link OutboxWorker.Builder} that concern the database and the handlers. */
    public static final class Builder {

        private @Nullable DataSource dataSource;
        private @Nullable DSLContext dsl;
        private OutboxTables tables = OutboxTables.defaults();
        private EventSerializer serializer = EventSerializer.jackson();
        private Clock clock = Clock.systemUTC();
        private final Map<String, Registration<?>> handlers = new LinkedHashMap<>();

        private Builder() {}

        /** The database of the outbox tables. Set this or {@link #dsl(DSLContext)}. */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** A jOOQ context on the outbox's database. Set this or {@link #dataSource(DataSource)}. */
        public Builder dsl(DSLContext dsl) {
            this.dsl = Objects.requireNonNull(dsl, "dsl");
            return this;
        }

        /** The schema and table names chosen at migration time. Default {@link OutboxTables#defaults()}. */
        public Builder tables(OutboxTables tables) {
            this.tables = Objects.requireNonNull(tables, "tables");
            return this;
        }

        /** Reads events for the handlers. Default {@link EventSerializer#jackson()}. */
        public Builder serializer(EventSerializer serializer) {
            this.serializer = Objects.requireNonNull(serializer, "serializer");
            return this;
        }

        /** The clock of the timestamps written (and of the next retry's time). Default the system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Runs {@code handler} for deliveries of {@code jobType}, with the event read as {@code eventClass}; as {@link OutboxWorker.Builder#handler}. */
        public <T> Builder handler(String jobType, Class<T> eventClass, JobHandler<T> handler) {
            Registration.add(handlers, jobType, eventClass, handler);
            return this;
        }

        public JobRunner build() {
            if ((dataSource == null) == (dsl == null)) {
                throw new IllegalArgumentException("dataSource or dsl: set exactly one of them");
            }
            if (handlers.isEmpty()) {
                throw new IllegalArgumentException("handler: register at least one handler");
            }
            DSLContext context = dsl != null ? dsl : DSL.using(Objects.requireNonNull(dataSource), SQLDialect.POSTGRES);
            return new JobRunner(new DirectRun(context, tables, serializer, clock, handlers));
        }
    }
}
