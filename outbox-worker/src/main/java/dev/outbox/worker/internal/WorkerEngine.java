package dev.outbox.worker.internal;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.api.EventSerializer;
import dev.outbox.api.OutboxException;
import dev.outbox.delivery.internal.DatabaseOutages;
import dev.outbox.delivery.internal.DeliveryTransitions;
import dev.outbox.delivery.internal.TlsRefusal;
import dev.outbox.delivery.internal.WorkerTransitions;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.worker.JobTracer;
import dev.outbox.worker.QueueSettings;
import dev.outbox.worker.WorkerLoggers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The running parts of an {@code OutboxWorker}: the AMQP connection, one consumer per queue, the completion writer. */
public final class WorkerEngine {

    private static final Logger log = LoggerFactory.getLogger(WorkerLoggers.LIFECYCLE);

    /** What the builder collected and checked. */
    public record Settings(
            DSLContext dsl,
            ConnectionFactory connectionFactory,
            OutboxTables tables,
            EventSerializer serializer,
            Clock clock,
            Map<String, QueueSettings> queues,
            Map<String, Registration<?>> handlers,
            Duration shutdownGrace,
            boolean shutdownHook,
            String name,
            WorkerMeters meters,
            JobTracer tracing) {

        public Settings {
            queues = Map.copyOf(new LinkedHashMap<>(queues));
            handlers = Map.copyOf(handlers);
        }
    }

    private final Settings settings;
    private final MessageProcessor processor;
    private final CompletionWriter completions;
    private final List<QueueConsumer> consumers = new ArrayList<>();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread hook;
    private @Nullable Connection connection;

    public WorkerEngine(Settings settings) {
        this.settings = settings;
        DSLContext db = settings.dsl(); // every query maps it to the configured names itself
        WorkerTransitions transitions =
                new WorkerTransitions(new DeliveryTransitions(settings.tables(), settings.clock()));
        this.completions = new CompletionWriter(db, transitions, settings.name() + "-completions");
        this.processor = new MessageProcessor(
                db,
                new DeliveryQueries(db, settings.tables()),
                transitions,
                completions,
                settings.serializer(),
                settings.handlers(),
                closed::get,
                settings.meters(),
                settings.tracing());
        this.hook = new Thread(this::closeFromHook, settings.name() + "-shutdown");
    }

    /** Connects and starts consuming every queue. */
    public void start() {
        if (closed.get()) {
            throw new IllegalStateException("this worker was closed; build a new one");
        }
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("this worker was started already");
        }
        try {
            DatabaseRetry.until(
                    log,
                    "read the outbox tables at start-up",
                    "the worker starts consuming once it answers",
                    closed::get,
                    () -> {
                        processor.warmUp();
                        return null;
                    });
        } catch (DatabaseRetry.Stopped e) {
            throw new OutboxException("the worker was closed while it waited for the database at start-up", e);
        } catch (RuntimeException e) {
            closed.set(true);
            if (TlsRefusal.of(e) != null) {
                throw new OutboxException(
                        "the worker cannot connect to the database ("
                                + e.getClass().getName() + DatabaseOutages.hint(e, null) + ")",
                        e);
            }
            throw new OutboxException(
                    "the worker cannot read the outbox tables " + settings.tables() + " ("
                            + e.getClass().getName()
                            + DatabaseOutages.hint(
                                    e,
                                    DatabaseOutages.INSUFFICIENT_PRIVILEGE.equals(DatabaseOutages.sqlState(e))
                                            ? DatabaseOutages.currentRole(settings.dsl())
                                            : null)
                            + "); are the migrations applied and the table names right?",
                    e);
        }
        processor.prepareReading();
        try {
            Connection c = connectToBroker();
            if (closed.get()) {
                c.abort();
                throw new OutboxException("the worker was closed while it started");
            }
            connection = c;
            completions.start();
            settings.queues()
                    .forEach((queue, queueSettings) ->
                            consumers.add(new QueueConsumer(queue, queueSettings, processor)));
            for (QueueConsumer consumer : consumers) {
                consumer.start(c);
            }
        } catch (DatabaseRetry.Stopped e) {
            close();
            throw new OutboxException("the worker was closed while it waited for the broker at start-up", e);
        } catch (Exception e) {
            close();
            Throwable cause = e instanceof UncheckedIOException u ? Objects.requireNonNullElse(u.getCause(), u) : e;
            TlsRefusal tls = TlsRefusal.of(cause);
            throw new OutboxException(
                    "the worker could not start consuming (" + cause.getClass().getName()
                            + (tls == null
                                    ? ""
                                    : ": TLS: " + tls.text()
                                            + "; check the trust store of the connection factory and the host it connects to")
                            + ")",
                    cause);
        }
        if (settings.shutdownHook()) {
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }

    /**
     * The broker's connection; a broker that refuses connections (stopped, restarting) is waited for
     * as the database is at start-up, anything else (a refused login, a bad virtual host) fails at once.
     */
    private Connection connectToBroker() {
        return DatabaseRetry.until(
                log,
                "broker",
                WorkerEngine::brokerOutage,
                e -> rootCause(e).getClass().getSimpleName(),
                "connect to the broker at start-up",
                "the worker starts consuming once it answers",
                closed::get,
                () -> {
                    try {
                        return settings.connectionFactory().newConnection(settings.name());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    } catch (TimeoutException e) {
                        throw new UncheckedIOException(new IOException(e));
                    }
                });
    }

    private static boolean brokerOutage(Throwable e) {
        Throwable root = rootCause(e);
        return root instanceof ConnectException
                || root instanceof SocketTimeoutException
                || root instanceof NoRouteToHostException
                || root instanceof TimeoutException;
    }

    private static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Stops consuming, waits up to the grace period for running jobs, marks those still running
     * {@code worker_died}, writes the completions queued so far and closes the connection.
     */
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (QueueConsumer consumer : consumers) {
            consumer.stopConsuming();
        }
        long deadline = System.nanoTime() + settings.shutdownGrace().toNanos();
        try {
            for (QueueConsumer consumer : consumers) {
                consumer.awaitIdle(deadline - System.nanoTime());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (MessageProcessor.Running run : processor.inHandler()) {
            try {
                processor.died(
                        run, "still running when the shutdown grace period of " + settings.shutdownGrace() + " ended");
            } catch (RuntimeException e) {
                log.error(
                        "could not mark delivery {} worker_died ({}); it will time out",
                        run.dispatch.deliveryId(),
                        e.getClass().getName());
            }
        }
        completions.close();
        for (QueueConsumer consumer : consumers) {
            consumer.close();
        }
        processor.flushLog();
        Connection c = connection;
        if (c != null && c.isOpen()) {
            try {
                c.close(5_000);
            } catch (Exception e) {
                log.debug(
                        "closing the AMQP connection failed ({})", e.getClass().getName());
            }
        }
        if (settings.shutdownHook() && started.get() && Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException | IllegalArgumentException e) {
                // the JVM is shutting down already, or the hook was never added
            }
        }
        log.info("worker {} closed", settings.name());
    }

    private void closeFromHook() {
        log.info("JVM shutdown: closing worker {}", settings.name());
        close();
    }
}
