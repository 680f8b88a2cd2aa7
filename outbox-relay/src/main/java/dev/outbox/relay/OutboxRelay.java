package dev.outbox.relay;

import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.api.LogText;
import dev.outbox.api.NotifyChannels;
import dev.outbox.api.Outbox;
import dev.outbox.delivery.amqp.AmqpAddress;
import dev.outbox.delivery.amqp.AmqpFactories;
import dev.outbox.delivery.internal.DurationLimits;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.internal.GaugeQueries;
import dev.outbox.relay.internal.MicrometerRelayMeters;
import dev.outbox.relay.internal.OutboxTablesCheck;
import dev.outbox.relay.internal.RelayEngine;
import dev.outbox.relay.internal.RelayMeters;
import dev.outbox.relay.internal.RelaySettings;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * The relay: turns recorded events into deliveries and sends them to RabbitMQ.
 *
 * <p>A pass routes unrouted events (T1: one delivery per route, in batches, {@code FOR UPDATE SKIP
 * LOCKED}), claims ready pending deliveries in one short statement and commits (T2), and only then
 * publishes them with publisher confirms, many in flight, {@code mandatory} set. A nack, a return,
 * a confirm timeout or a lost connection sends that delivery alone through retry-or-fail (T3,
 * {@code publish_failed}); a publish route's delivery is completed on the broker's confirm. Last, the
 * pass sends dispatched deliveries past their timeout through retry-or-fail (T4, {@code timeout}).
 * Several relays may run at once over the same tables.
 *
 * <pre>{@code
 * try (OutboxRelay relay = OutboxRelay.builder()
 *         .dataSource(dataSource)
 *         .amqpUri("amqp://guest:guest@localhost:5672/%2F")
 *         .routes(Routes.fromFile(Path.of("routes.yaml")))
 *         .build()) {
 *     relay.start();          // passes in a background thread until close()
 *     ...
 * }
 * // or one pass: relay.runOnce()
 * }</pre>
 */
public final class OutboxRelay implements AutoCloseable {

    /** The default of {@link Builder#wakeupLinger}, in milliseconds. */
    public static final long DEFAULT_WAKEUP_LINGER_MILLIS = 5;

    private static final Duration DEFAULT_WAKEUP_LINGER = Duration.ofMillis(DEFAULT_WAKEUP_LINGER_MILLIS);
    /** The default of {@link Builder#maxQueueDepth}: messages waiting in one job queue. */
    public static final int DEFAULT_MAX_QUEUE_DEPTH = 1_000;
    /** The default of {@link Builder#gaugeInterval}, in seconds. */
    public static final long DEFAULT_GAUGE_INTERVAL_SECONDS = 15;

    private final RelaySettings settings;
    private final RelayEngine engine;
    private volatile boolean stopping;
    private @Nullable Thread thread;
    private volatile @Nullable RuntimeException failure;

    private OutboxRelay(RelaySettings settings) {
        this.settings = settings;
        this.engine = new RelayEngine(settings);
    }

    /**
     * Checks that the outbox tables exist where {@code tables} says, from the driver's metadata.
     *
     * @throws RelayException naming the schema and the missing tables, and that the migrations create them
     * @throws DatabaseUnavailableException when the database cannot be reached (a transient error)
     */
    public static void requireTables(DataSource dataSource, OutboxTables tables) {
        OutboxTablesCheck.require(dataSource, tables);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Runs one pass in the calling thread.
     *
     * @throws DatabaseUnavailableException when the database cannot be reached or is restarting
     * @throws RelayException when the database fails otherwise
     * @throws BrokerUnavailableException when the broker cannot be reached
     */
    public synchronized PassResult runOnce() {
        return engine.pass();
    }

    /**
     * Runs passes in the calling thread until {@link #stop()} (or {@link #close()}): after a pass
     * that found nothing to do, waits for a notification of new events or the sleep. A pass that found
     * work is followed by the next at once; when that one finds nothing, the loop looks again 10 ms
     * later, then after 20, 40 ... ms, doubling until the wait is the sleep; a look is one statement,
     * and a pass follows when it finds work. So neither an event whose
     * recording skipped its NOTIFY (the producers' notify interval) and committed after the pass, nor
     * the events that keep coming while a loop only polls, wait for the sleep. The current pass
     * finishes before this returns. An outage of the database or the broker does not end it: it is
     * logged once, the pass is tried again with a capped backoff (100 ms doubling up to the sleep, at
     * most 30 s), and the recovery is logged.
     *
     * @throws RelayException when the database fails for good (a missing table, a refused login, a
     *     missing permission): one line naming the cause's class and SQLState
     */
    public synchronized void runLoop() {
        engine.loop(() -> stopping || Thread.currentThread().isInterrupted());
    }

    /** Runs {@link #runLoop()} in a background thread; {@link #failure()} tells why it ended early. */
    public synchronized OutboxRelay start() {
        if (thread != null) {
            throw new IllegalStateException("the relay is already started");
        }
        Thread t = new Thread(
                () -> {
                    try {
                        runLoop();
                    } catch (RuntimeException e) {
                        failure = e;
                        LoggerFactory.getLogger(RelayLoggers.RELAY).error("relay loop ended: {}", e.getMessage());
                    }
                },
                "outbox-relay");
        thread = t;
        t.start();
        return this;
    }

    /** Asks the loop to stop after the current pass; returns at once. */
    public void stop() {
        stopping = true;
    }

    /** Why the background loop ended on its own, if it did. */
    public Optional<RuntimeException> failure() {
        return Optional.ofNullable(failure);
    }

    /** The settings this relay was built with: its tables. */
    public OutboxTables tables() {
        return settings.tables();
    }

    /** Stops the loop, waits for the current pass to finish, and closes the broker and LISTEN connections. */
    @Override
    public void close() {
        stop();
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (this) {
            engine.close();
        }
    }

    /** Settings of an {@link OutboxRelay}; {@link #build()} checks them and names the bad one. */
    public static final class Builder {
        private @Nullable DataSource dataSource;
        private @Nullable ConnectionFactory connectionFactory;
        private @Nullable String amqpUri;
        private @Nullable Routes routes;
        private OutboxTables tables = OutboxTables.defaults();
        private Clock clock = Clock.systemUTC();
        private int routeBatchSize = 500;
        private int dispatchBatchSize = 500;
        private int timeoutBatchSize = 500;
        private int maxInFlight = 2_000;
        private int maxQueueDepth = DEFAULT_MAX_QUEUE_DEPTH;
        private Duration confirmTimeout = Duration.ofSeconds(30);
        private QueueType queueType = QueueType.CLASSIC;
        private String notifyChannel = Outbox.DEFAULT_NOTIFY_CHANNEL;
        private boolean pollOnly;
        private Duration sleep = Duration.ofSeconds(1);
        private @Nullable ListenConnection listenConnection;
        private Duration wakeupLinger = DEFAULT_WAKEUP_LINGER;
        private @Nullable MeterRegistry meterRegistry;
        private Duration gaugeInterval = Duration.ofSeconds(DEFAULT_GAUGE_INTERVAL_SECONDS);

        private Builder() {}

        /** The database of the outbox tables. Required. */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** The broker, as a connection factory (copied; the relay reconnects by itself). Required unless {@link #amqpUri}. */
        public Builder connectionFactory(ConnectionFactory connectionFactory) {
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
            return this;
        }

        /**
         * The broker, as {@code amqp[s]://[user:password@]host[:port][/vhost][?heartbeat=s&connection_timeout=ms&channel_max=n]}.
         * The host is connected to as written (an underscore is fine); a URI that cannot be read makes
         * {@link #build()} throw an {@link IllegalArgumentException} starting with {@code OutboxRelay.amqpUri:} that
         * never repeats the URI; {@code amqps} verifies the certificate and host name against the JVM's
         * trust store. Required unless {@link #connectionFactory}.
         */
        public Builder amqpUri(String amqpUri) {
            this.amqpUri = Objects.requireNonNull(amqpUri, "amqpUri");
            return this;
        }

        /** The routes of each event type. Required. */
        public Builder routes(Routes routes) {
            this.routes = Objects.requireNonNull(routes, "routes");
            return this;
        }

        /** The schema and table names chosen at migration time. Default {@link OutboxTables#defaults()}. */
        public Builder tables(OutboxTables tables) {
            this.tables = Objects.requireNonNull(tables, "tables");
            return this;
        }

        /** The clock of every timestamp the relay writes and compares. Default the system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Events routed per transaction (1..10,000). Default 500. */
        public Builder routeBatchSize(int routeBatchSize) {
            this.routeBatchSize = routeBatchSize;
            return this;
        }

        /** Deliveries claimed per statement (1..10,000). Default 500. */
        public Builder dispatchBatchSize(int dispatchBatchSize) {
            this.dispatchBatchSize = dispatchBatchSize;
            return this;
        }

        /** Overdue deliveries swept per statement (1..10,000). Default 500. */
        public Builder timeoutBatchSize(int timeoutBatchSize) {
            this.timeoutBatchSize = timeoutBatchSize;
            return this;
        }

        /** Messages published and not yet confirmed, at most (1..100,000). Default 2,000. */
        public Builder maxInFlight(int maxInFlight) {
            this.maxInFlight = maxInFlight;
            return this;
        }

        /**
         * Messages waiting in one job queue, at most, before the relay dispatches no more to it
         * (0..1,000,000; 0: no bound). Default {@value OutboxRelay#DEFAULT_MAX_QUEUE_DEPTH}. While a
         * queue holds that many ready messages (the broker's count, read by a passive declaration,
         * plus what the relay published since), its pending deliveries stay pending in the database,
         * in order, and the relay goes on with other queues and publish routes; once its consumers
         * have taken enough, it dispatches again by itself. Choose a bound that the queue's workers
         * consume well within the routes' delivery timeout: a message that waits longer times out
         * unstarted (T4u) and is sent again. One relay overshoots it by less than one dispatch batch;
         * R relays, counting only their own publishes over the broker's count, by less than
         * {@code (R - 1) × bound + R × batch} at worst, about a batch each while the queue stays full.
         */
        public Builder maxQueueDepth(int maxQueueDepth) {
            this.maxQueueDepth = maxQueueDepth;
            return this;
        }

        /** How long a publish may wait for its confirm before it counts as failed (T3): positive, at most 100 years. Default 30 s. */
        public Builder confirmTimeout(Duration confirmTimeout) {
            this.confirmTimeout = Objects.requireNonNull(confirmTimeout, "confirmTimeout");
            return this;
        }

        /** The type of the queues declared for job routes. Default {@link QueueType#CLASSIC}. */
        public Builder queueType(QueueType queueType) {
            this.queueType = Objects.requireNonNull(queueType, "queueType");
            return this;
        }

        /** The channel a looping relay LISTENs on. Default {@value Outbox#DEFAULT_NOTIFY_CHANNEL}. */
        public Builder notifyChannel(String notifyChannel) {
            this.notifyChannel = Objects.requireNonNull(notifyChannel, "notifyChannel");
            return this;
        }

        /**
         * Whether a looping relay LISTENs on {@link #notifyChannel(String)} to wake up early; with false it
         * only polls (for connection poolers in transaction mode): every {@link #sleep(Duration)} when idle,
         * sooner after a pass that found work ({@link #runLoop()}). Default
         * true; the recording side's {@code Outbox.Builder.notifications(boolean)} is the other end.
         */
        public Builder notifications(boolean notifications) {
            this.pollOnly = !notifications;
            return this;
        }

        /** The pause after a pass that found nothing to do: whole seconds, 1..3600. Default 1 s. */
        public Builder sleep(Duration sleep) {
            this.sleep = Objects.requireNonNull(sleep, "sleep");
            return this;
        }

        /**
         * Opens the connection a looping relay holds to LISTEN. Default: a connection from
         * {@link #dataSource}, held for as long as the loop runs.
         */
        public Builder listenConnection(ListenConnection listenConnection) {
            this.listenConnection = Objects.requireNonNull(listenConnection, "listenConnection");
            return this;
        }

        /**
         * How long a looping relay waits after the first notification before it starts the pass, so
         * that one pass takes the events that are committed meanwhile instead of one pass each
         * (0..1 s). It delays only the first pass after an idle one; a pass that found work is
         * followed by the next at once. Default {@value #DEFAULT_WAKEUP_LINGER_MILLIS} ms.
         */
        public Builder wakeupLinger(Duration wakeupLinger) {
            this.wakeupLinger = Objects.requireNonNull(wakeupLinger, "wakeupLinger");
            return this;
        }

        /**
         * Where the relay's meters go (docs/observability.md lists them): counters and timers as it
         * works, and gauges of the deliveries read from the database every {@link #gaugeInterval} by
         * a thread of their own (NaN while the database cannot be read). Default none: nothing is
         * registered, and Micrometer, an optional dependency, need not be on the class path.
         */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /**
         * How often the gauges of {@link #meterRegistry} are read from the database (1 s..1 h).
         * Default {@value #DEFAULT_GAUGE_INTERVAL_SECONDS} s.
         */
        public Builder gaugeInterval(Duration gaugeInterval) {
            this.gaugeInterval = Objects.requireNonNull(gaugeInterval, "gaugeInterval");
            return this;
        }

        public OutboxRelay build() {
            if (dataSource == null) {
                throw new IllegalArgumentException("OutboxRelay.dataSource is required");
            }
            if (routes == null) {
                throw new IllegalArgumentException("OutboxRelay.routes is required");
            }
            if (connectionFactory != null && amqpUri != null) {
                throw new IllegalArgumentException("OutboxRelay: give connectionFactory or amqpUri, not both");
            }
            ConnectionFactory amqp = connectionFactory;
            if (amqp == null) {
                if (amqpUri == null) {
                    throw new IllegalArgumentException("OutboxRelay.amqpUri (or connectionFactory) is required");
                }
                amqp = AmqpFactories.of(AmqpAddress.parse(amqpUri, "OutboxRelay.amqpUri"));
            }
            range("routeBatchSize", routeBatchSize, 10_000);
            range("dispatchBatchSize", dispatchBatchSize, 10_000);
            range("timeoutBatchSize", timeoutBatchSize, 10_000);
            range("maxInFlight", maxInFlight, 100_000);
            if (maxQueueDepth < 0 || maxQueueDepth > 1_000_000) {
                throw new IllegalArgumentException(
                        "OutboxRelay.maxQueueDepth must be from 0 (no bound) to 1000000, got " + maxQueueDepth);
            }
            if (confirmTimeout.isNegative() || confirmTimeout.isZero()) {
                throw new IllegalArgumentException(
                        "OutboxRelay.confirmTimeout must be positive, got " + confirmTimeout);
            }
            DurationLimits.atMostMax("OutboxRelay.confirmTimeout", confirmTimeout);
            if (sleep.toNanos() % 1_000_000_000L != 0 || sleep.toSeconds() < 1 || sleep.toSeconds() > 3600) {
                throw new IllegalArgumentException(
                        "OutboxRelay.sleep must be a whole number of seconds from 1 to 3600, got " + sleep);
            }
            if (!NotifyChannels.isValid(notifyChannel)) {
                throw new IllegalArgumentException("OutboxRelay.notifyChannel must be " + NotifyChannels.RULE
                        + ", got '" + LogText.of(notifyChannel) + "'");
            }
            if (wakeupLinger.isNegative() || wakeupLinger.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException(
                        "OutboxRelay.wakeupLinger must be from 0 to 1 s, got " + wakeupLinger);
            }
            if (gaugeInterval.compareTo(Duration.ofSeconds(1)) < 0
                    || gaugeInterval.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException(
                        "OutboxRelay.gaugeInterval must be from 1 s to 1 h, got " + gaugeInterval);
            }
            DataSource ds = dataSource;
            ListenConnection listen = listenConnection != null
                    ? listenConnection
                    : () -> {
                        try {
                            return ds.getConnection();
                        } catch (java.sql.SQLException e) {
                            throw new RelayException(
                                    "cannot open the LISTEN connection ("
                                            + e.getClass().getSimpleName() + ")",
                                    e);
                        }
                    };
            // Micrometer's classes are loaded only here, when a registry was given
            RelayMeters meters = meterRegistry == null
                    ? RelayMeters.NONE
                    : MicrometerRelayMeters.register(
                            meterRegistry, ds, tables, clock, queues(routes), orderedRoutes(routes), gaugeInterval);
            return new OutboxRelay(new RelaySettings(
                    ds,
                    amqp,
                    routes,
                    tables,
                    clock,
                    routeBatchSize,
                    dispatchBatchSize,
                    timeoutBatchSize,
                    maxInFlight,
                    maxQueueDepth,
                    confirmTimeout,
                    queueType,
                    notifyChannel,
                    pollOnly,
                    sleep,
                    listen,
                    wakeupLinger,
                    meters));
        }

        /** The queue tag of each route: a job route's queue, a publish route's exchange (as in the deliveries' queue_name). */
        private static Set<String> queues(Routes routes) {
            Set<String> queues = new TreeSet<>();
            for (Route route : routes.all()) {
                queues.add(route instanceof JobRoute job ? job.queue() : ((PublishRoute) route).exchange());
            }
            return queues;
        }

        /** The ordered routes, as the blocked-key gauge names them. */
        private static Set<GaugeQueries.BlockedRoute> orderedRoutes(Routes routes) {
            Set<GaugeQueries.BlockedRoute> ordered = new java.util.LinkedHashSet<>();
            for (Route route : routes.all()) {
                if (route.ordering() != Ordering.UNORDERED) {
                    ordered.add(
                            route instanceof JobRoute job
                                    ? new GaugeQueries.BlockedRoute(job.jobType(), job.queue())
                                    : new GaugeQueries.BlockedRoute(
                                            ((PublishRoute) route).name(), ((PublishRoute) route).exchange()));
                }
            }
            return ordered;
        }

        private static void range(String field, int value, int max) {
            if (value < 1 || value > max) {
                throw new IllegalArgumentException(
                        "OutboxRelay." + field + " must be from 1 to " + max + ", got " + value);
            }
        }
    }
}
