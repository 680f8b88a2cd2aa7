package dev.outbox.worker;

import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.api.EventSerializer;
import dev.outbox.delivery.LogText;
import dev.outbox.delivery.amqp.AmqpAddress;
import dev.outbox.delivery.amqp.AmqpFactories;
import dev.outbox.delivery.amqp.AmqpNames;
import dev.outbox.delivery.internal.DurationLimits;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.worker.internal.JobTracers;
import dev.outbox.worker.internal.Registration;
import dev.outbox.worker.internal.WorkerEngine;
import dev.outbox.worker.internal.WorkerMeters;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The worker a job service embeds: consumes the outbox's job queues, runs the handler registered for
 * each message's job type and writes the outcome back to the deliveries table.
 *
 * <pre>{@code
 * try (OutboxWorker worker = OutboxWorker.builder()
 *         .dataSource(dataSource)
 *         .amqpUri("amqp://guest:guest@localhost:5672/%2F")
 *         .queue("emails", QueueSettings.of(8, 200))
 *         .handler("send-confirmation", OrderPlaced.class, (event, context) -> mailer.send(event))
 *         .build()) {
 *     worker.start();
 *     ...
 * }
 * }</pre>
 *
 * <p>For each message the worker reads the ids, finds the delivery and requires it dispatched with the
 * message's dispatch id and job type (otherwise the message is acknowledged and dropped with a
 * WARNING, without calling the handler), loads and deserializes the event, calls the handler, and
 * writes in one short statement:
 * <ul>
 *   <li>returned normally: completed (a superseded dispatch that finishes late changes nothing and is
 *       logged at WARNING);</li>
 *   <li>{@link RetryableOutboxException}: back to pending with the delivery's next delay, or failed
 *       {@code retries_exhausted};</li>
 *   <li>any other exception: failed {@code job_failed} at once (its class is logged, never its message);</li>
 *   <li>an {@link Error}: failed {@code worker_died}, logged at ERROR; the worker goes on serving.</li>
 * </ul>
 * The message is acknowledged only after the database holds the outcome; the broker never requeues a
 * handled message (the outbox owns retries). A lookup or an outcome write that meets a database outage
 * is tried again with its message unacknowledged; a worker closed meanwhile leaves the message to the
 * broker for another worker. Malformed messages are rejected without requeue, and a
 * delivery they identify is failed with a safe reason ({@code bad_message}, {@code unknown_job_type},
 * {@code undeserializable_event}). A message that names a publish route's delivery (T5 for those is the
 * relay's, on the broker's confirm) is rejected with a WARNING and changes
 * nothing: no handler runs and the row stays the relay's. What the worker trusts is the row, never the
 * message: the job type, the attempt, the event and its trace context all come from the database.
 *
 * <p>{@link #close()} stops consuming, waits up to {@link Builder#shutdownGrace(Duration)} for running
 * jobs, marks those still running {@code worker_died}, and closes the connection; messages received but
 * not yet started go back to the queue untouched. A JVM shutdown hook (on by default) does the same on
 * SIGTERM.
 */
public final class OutboxWorker implements AutoCloseable {

    private final WorkerEngine engine;

    private OutboxWorker(WorkerEngine engine) {
        this.engine = engine;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Checks that the outbox tables answer, connects to the broker and starts consuming every queue.
     * While the database is unavailable (a refused or lost connection, a server restarting) or the
     * broker refuses connections, waits and tries again after 100 ms doubling up to 5 s; {@link #close()}
     * from another thread ends the wait. A fatal error (a missing table, a refused login) fails at once
     * with an {@link dev.outbox.api.OutboxException}.
     */
    public void start() {
        engine.start();
    }

    /** Graceful shutdown; see the class documentation. A second call does nothing. */
    @Override
    public void close() {
        engine.close();
    }

    /** Settings of an {@link OutboxWorker}; {@link #build()} checks them and names the bad one. */
    public static final class Builder {

        private static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);

        private @Nullable DataSource dataSource;
        private @Nullable DSLContext dsl;
        private @Nullable ConnectionFactory connectionFactory;
        private @Nullable String amqpUri;
        private OutboxTables tables = OutboxTables.defaults();
        private EventSerializer serializer = EventSerializer.jackson();
        private Clock clock = Clock.systemUTC();
        private final Map<String, QueueSettings> queues = new LinkedHashMap<>();
        private final Map<String, Registration<?>> handlers = new LinkedHashMap<>();
        private Duration shutdownGrace = DEFAULT_GRACE;
        private boolean shutdownHook = true;
        private String name = "outbox-worker";
        /** An {@code io.micrometer.core.instrument.MeterRegistry}, or null; typed Object so that the builder loads without Micrometer. */
        private @Nullable Object meterRegistry;
        /** An {@code io.opentelemetry.api.OpenTelemetry}, or null (then {@code GlobalOpenTelemetry}); Object for the same reason. */
        private @Nullable Object openTelemetry;

        private @Nullable JobTracer tracer;

        private Builder() {}

        /** The database of the outbox tables. Set this or {@link #dsl(DSLContext)}. */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** The application's jOOQ context on the outbox's database. Set this or {@link #dataSource(DataSource)}. */
        public Builder dsl(DSLContext dsl) {
            this.dsl = Objects.requireNonNull(dsl, "dsl");
            return this;
        }

        /** The broker, as a configured factory (its recovery setting is kept). Set this or {@link #amqpUri(String)}. */
        public Builder connectionFactory(ConnectionFactory connectionFactory) {
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
            return this;
        }

        /**
         * The broker, as an AMQP URI such as {@code amqp://user:pass@host:5672/%2F}; the connection
         * recovers automatically after a network failure (messages in flight then come back and are
         * recognised by their dispatch id).
         */
        public Builder amqpUri(String amqpUri) {
            this.amqpUri = Objects.requireNonNull(amqpUri, "amqpUri");
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

        /** The clock of the timestamps the worker writes. Default the system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Consumes {@code queue} with its own handler threads and prefetch. */
        public Builder queue(String queue, QueueSettings settings) {
            Objects.requireNonNull(queue, "queue");
            Objects.requireNonNull(settings, "settings");
            String problem = queue.isBlank() ? "must be a non-blank name" : AmqpNames.queueProblem(queue);
            if (problem != null) {
                throw new IllegalArgumentException("queue '" + LogText.of(queue) + "' " + problem);
            }
            if (queues.putIfAbsent(queue, settings) != null) {
                throw new IllegalArgumentException("queue '" + LogText.of(queue) + "' is configured twice");
            }
            return this;
        }

        /** Consumes {@code queue} with {@link QueueSettings#defaults()}. */
        public Builder queue(String queue) {
            return queue(queue, QueueSettings.defaults());
        }

        /** Consumes {@code queue} with {@code concurrency} handler threads and {@code prefetch} unacknowledged messages. */
        public Builder queue(String queue, int concurrency, int prefetch) {
            return queue(queue, QueueSettings.of(concurrency, prefetch));
        }

        /** Runs {@code handler} for messages of {@code jobType}, with the event read as {@code eventClass}. */
        public <T> Builder handler(String jobType, Class<T> eventClass, JobHandler<T> handler) {
            Registration.add(handlers, jobType, eventClass, handler);
            return this;
        }

        /** How long {@link OutboxWorker#close()} waits for running jobs: from 0 to 100 years. Default 30 s. */
        public Builder shutdownGrace(Duration shutdownGrace) {
            Objects.requireNonNull(shutdownGrace, "shutdownGrace");
            if (shutdownGrace.isNegative()) {
                throw new IllegalArgumentException("shutdownGrace must not be negative, got " + shutdownGrace);
            }
            DurationLimits.atMostMax("shutdownGrace", shutdownGrace);
            this.shutdownGrace = shutdownGrace;
            return this;
        }

        /** Whether a JVM shutdown hook closes the worker on SIGTERM. Default true. */
        public Builder shutdownHook(boolean shutdownHook) {
            this.shutdownHook = shutdownHook;
            return this;
        }

        /** The name of the AMQP connection and the worker's threads. Default {@code outbox-worker}. */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Registers the worker's meters in {@code registry} (docs/observability.md): handler durations,
         * jobs by outcome, dropped messages by reason, handlers in flight and the lag from recording to
         * handler start, tagged by queue, job type, outcome and reason only. Micrometer is an optional
         * dependency: without this setting the worker needs no Micrometer on the class path.
         */
        public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "meterRegistry");
            return this;
        }

        /**
         * The OpenTelemetry whose tracer starts a CONSUMER span around each handler, child of the trace
         * recorded with the event. Default: {@code GlobalOpenTelemetry} (read at each job, so that it may
         * be set after the worker is built) when the OpenTelemetry API is on the class path; without the
         * API the worker traces nothing and needs nothing.
         */
        public Builder openTelemetry(io.opentelemetry.api.OpenTelemetry openTelemetry) {
            this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
            return this;
        }

        /**
         * The tracer of the span around each handler, in place of OpenTelemetry's (say, one on
         * Micrometer Tracing's Brave bridge); {@link JobTracer#NONE} traces nothing. Set this or
         * {@link #openTelemetry}, not both.
         */
        public Builder tracer(JobTracer tracer) {
            this.tracer = Objects.requireNonNull(tracer, "tracer");
            return this;
        }

        public OutboxWorker build() {
            if ((dataSource == null) == (dsl == null)) {
                throw new IllegalArgumentException("dataSource or dsl: set exactly one of them");
            }
            if ((connectionFactory == null) == (amqpUri == null)) {
                throw new IllegalArgumentException("connectionFactory or amqpUri: set exactly one of them");
            }
            if (queues.isEmpty()) {
                throw new IllegalArgumentException("queue: configure at least one queue to consume");
            }
            if (handlers.isEmpty()) {
                throw new IllegalArgumentException("handler: register at least one handler");
            }
            if (name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank");
            }
            if (tracer != null && openTelemetry != null) {
                throw new IllegalArgumentException("tracer or openTelemetry: set at most one of them");
            }
            DSLContext context = dsl != null ? dsl : DSL.using(Objects.requireNonNull(dataSource), SQLDialect.POSTGRES);
            // the AMQP client's own reports without stack traces, unless the application chose a handler
            ConnectionFactory factory = connectionFactory != null
                    ? AmqpFactories.quiet(connectionFactory)
                    : fromUri(Objects.requireNonNull(amqpUri));
            return new OutboxWorker(new WorkerEngine(new WorkerEngine.Settings(
                    context,
                    factory,
                    tables,
                    serializer,
                    clock,
                    queues,
                    handlers,
                    shutdownGrace,
                    shutdownHook,
                    name,
                    WorkerMeters.of(meterRegistry, queues.keySet(), clock),
                    tracer != null ? tracer : JobTracers.of(openTelemetry))));
        }

        /**
         * Set field by field from one reading of the URI ({@code ConnectionFactory.setUri} would fall back
         * to 127.0.0.1 and guest for a host it cannot read, such as {@code bad_rabbit}); {@code amqps}
         * verifies the broker's certificate and host name against the JVM's trust store.
         */
        private static ConnectionFactory fromUri(String uri) {
            ConnectionFactory factory = AmqpFactories.of(AmqpAddress.parse(uri, "amqpUri"));
            factory.setAutomaticRecoveryEnabled(true);
            factory.setTopologyRecoveryEnabled(true);
            return factory;
        }
    }
}
