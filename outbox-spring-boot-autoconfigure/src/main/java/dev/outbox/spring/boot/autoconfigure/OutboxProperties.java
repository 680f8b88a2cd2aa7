package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.api.Outbox;
import dev.outbox.flyway.OutboxTables;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code outbox.*} properties. The names must match those the migrations were run with; they are
 * checked at startup and a bad one fails it with a message naming the property.
 */
@ConfigurationProperties(prefix = "outbox")
public class OutboxProperties {

    /** The schema of the outbox tables. */
    private String schema = OutboxTables.DEFAULT_SCHEMA;

    /** The events table. */
    private String eventsTable = OutboxTables.DEFAULT_EVENTS;

    /** The deliveries table. */
    private String deliveriesTable = OutboxTables.DEFAULT_DELIVERIES;

    /** The NOTIFY channel that wakes the relays after a recording transaction commits. */
    private String notifyChannel = Outbox.DEFAULT_NOTIFY_CHANNEL;

    /** Whether a recording transaction sends a NOTIFY on {@code outbox.notify-channel}. */
    private boolean notifications = true;

    private final Flyway flyway = new Flyway();

    private final Worker worker = new Worker();

    private final Relay relay = new Relay();

    private final Events events = new Events();

    private final Health health = new Health();

    private final Endpoint endpoint = new Endpoint();

    public String getSchema() {
        return schema;
    }

    public void setSchema(String schema) {
        this.schema = schema;
    }

    public String getEventsTable() {
        return eventsTable;
    }

    public void setEventsTable(String eventsTable) {
        this.eventsTable = eventsTable;
    }

    public String getDeliveriesTable() {
        return deliveriesTable;
    }

    public void setDeliveriesTable(String deliveriesTable) {
        this.deliveriesTable = deliveriesTable;
    }

    public String getNotifyChannel() {
        return notifyChannel;
    }

    public void setNotifyChannel(String notifyChannel) {
        this.notifyChannel = notifyChannel;
    }

    public boolean isNotifications() {
        return notifications;
    }

    public void setNotifications(boolean notifications) {
        this.notifications = notifications;
    }

    public Flyway getFlyway() {
        return flyway;
    }

    public Worker getWorker() {
        return worker;
    }

    public Relay getRelay() {
        return relay;
    }

    public Events getEvents() {
        return events;
    }

    public Health getHealth() {
        return health;
    }

    public Endpoint getEndpoint() {
        return endpoint;
    }

    /**
     * The tables these properties name.
     *
     * @throws IllegalArgumentException naming the {@code outbox.*} property whose value is not a valid name
     */
    public OutboxTables tables() {
        OutboxTables tables = OutboxTables.defaults();
        tables = checked("outbox.schema", schema, tables::withSchema);
        tables = checked("outbox.events-table", eventsTable, tables::withEvents);
        return checked("outbox.deliveries-table", deliveriesTable, tables::withDeliveries);
    }

    /**
     * Gives {@code builder} the tables, the notifications and their channel of these properties.
     *
     * @throws IllegalArgumentException naming the {@code outbox.*} property whose value is not valid
     */
    Outbox.Builder applyTo(Outbox.Builder builder) {
        builder.tables(tables()).notifications(notifications);
        return notifications ? checked("outbox.notify-channel", notifyChannel, builder::notifyChannel) : builder;
    }

    private static <T> T checked(String property, String value, Function<String, T> with) {
        try {
            return with.apply(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(property + " = '" + value + "' is not valid: " + e.getMessage(), e);
        }
    }

    /** {@code outbox.health.*}: the actuator's {@code outbox} health. */
    public static class Health {

        /**
         * How long the oldest ready pending delivery may wait before the health is down: past it, no
         * relay dispatches, or the relays do not keep up.
         */
        private Duration backlogAgeThreshold = Duration.ofMinutes(5);

        public Duration getBacklogAgeThreshold() {
            return backlogAgeThreshold;
        }

        public void setBacklogAgeThreshold(Duration backlogAgeThreshold) {
            this.backlogAgeThreshold = backlogAgeThreshold;
        }
    }

    /** {@code outbox.endpoint.*}: the actuator's {@code outbox} endpoint. */
    public static class Endpoint {

        /** Whether the endpoint has its write operation (requeue of failed deliveries); read only when false. */
        private boolean writeEnabled;

        public boolean isWriteEnabled() {
            return writeEnabled;
        }

        public void setWriteEnabled(boolean writeEnabled) {
            this.writeEnabled = writeEnabled;
        }
    }

    /** {@code outbox.flyway.*}. */
    public static class Flyway {

        /**
         * Whether the outbox migrations run at startup (after the application's own Flyway migrations,
         * with their own history table). Off for teams that copy the SQL into their own migrations.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** {@code outbox.events.*}: Spring application events of {@code @OutboxEvent} classes. */
    public static class Events {

        /**
         * Whether an application event of an {@code @OutboxEvent} class, published inside a
         * transaction, is recorded in the outbox in that transaction.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /**
     * {@code outbox.worker.*}: the worker that runs the {@link OutboxJobHandler} beans. The broker is
     * Boot's {@code spring.rabbitmq.*} unless {@code outbox.worker.uri} names another.
     */
    public static class Worker {

        /** Whether the worker runs when there are handler beans. */
        private boolean enabled = true;

        /** Whether the worker starts with the context (off: start the OutboxWorkerLifecycle bean yourself). */
        private boolean autoStartup = true;

        /**
         * The broker as an AMQP URI ({@code amqp://user:password@host:5672/%2F}, {@code amqps://} for
         * TLS); when set, the worker ignores {@code spring.rabbitmq.*}.
         */
        private @Nullable String uri;

        /** Handler threads of each queue without a setting of its own in {@code outbox.worker.queues}. */
        private int concurrency = dev.outbox.worker.QueueSettings.DEFAULT_CONCURRENCY;

        /** Unacknowledged messages of each queue without a setting of its own in {@code outbox.worker.queues}. */
        private int prefetch = dev.outbox.worker.QueueSettings.DEFAULT_PREFETCH;

        /** Settings of single queues, by queue name ({@code outbox.worker.queues.emails.prefetch=200}). */
        private Map<String, Queue> queues = new LinkedHashMap<>();

        /**
         * How long the shutdown waits for running jobs before it marks them {@code worker_died}; must be
         * shorter than {@code spring.lifecycle.timeout-per-shutdown-phase}. Default: that timeout less
         * 5 s (less half of it when it is under 10 s), the time left to write the outcomes and close.
         */
        private @Nullable Duration shutdownGrace;

        /** The name of the worker's AMQP connection and threads. */
        private String name = "outbox-worker";

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isAutoStartup() {
            return autoStartup;
        }

        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public @Nullable String getUri() {
            return uri;
        }

        public void setUri(@Nullable String uri) {
            this.uri = uri;
        }

        public int getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        public int getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(int prefetch) {
            this.prefetch = prefetch;
        }

        public Map<String, Queue> getQueues() {
            return queues;
        }

        public void setQueues(Map<String, Queue> queues) {
            this.queues = queues;
        }

        public @Nullable Duration getShutdownGrace() {
            return shutdownGrace;
        }

        public void setShutdownGrace(@Nullable Duration shutdownGrace) {
            this.shutdownGrace = shutdownGrace;
        }

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }
    }

    /**
     * {@code outbox.relay.*}: the relay inside the application, off by default. Its routes come from
     * {@code outbox.relay.routes-file} and the application's {@code Routes} beans; the broker is Boot's
     * {@code spring.rabbitmq.*} unless {@code outbox.relay.uri} names another. The tables and the NOTIFY
     * channel are those of {@code outbox.*}. Plain types only: the binding must not need outbox-relay.
     * The defaults are the relay's own, written out for the configuration metadata (EmbeddedRelayTest
     * compares them).
     */
    public static class Relay {

        /** Whether the relay runs inside the application (for teams that do not deploy the relay service). */
        private boolean enabled;

        /** Whether the relay starts with the context (off: start the OutboxRelayLifecycle bean yourself). */
        private boolean autoStartup = true;

        /** A routes file (YAML {@code .yaml}/{@code .yml} or JSON {@code .json}), the relay service's format. */
        private @Nullable String routesFile;

        /**
         * The broker as an AMQP URI ({@code amqp://user:password@host:5672/%2F}, {@code amqps://} for
         * TLS); when set, the relay ignores {@code spring.rabbitmq.*}.
         */
        private @Nullable String uri;

        /** The pause after a pass that found nothing to do (a NOTIFY wakes it sooner): whole seconds, 1s..3600s. */
        private Duration sleep = Duration.ofSeconds(1);

        /** The type of the queues declared for job routes: {@code classic} or {@code quorum} (RabbitMQ only). */
        private String queueType = "classic";

        /** Events routed per transaction, 1..10000. */
        private int routeBatchSize = 500;

        /** Deliveries claimed per statement, 1..10000. */
        private int dispatchBatchSize = 500;

        /** Overdue deliveries swept per statement, 1..10000. */
        private int timeoutBatchSize = 500;

        /** Messages published and not yet confirmed, at most, 1..100000. */
        private int maxInFlight = 2_000;

        /** Messages waiting in one job queue, at most, before the relay holds back its dispatches, 0 (no bound)..1000000. */
        private int maxQueueDepth = 1_000;

        /** How long a publish may wait for the broker's confirm before it counts as refused; positive. */
        private Duration confirmTimeout = Duration.ofSeconds(30);

        /** How long the relay waits after a first NOTIFY before its pass, to take more events in one, 0..1s. */
        private Duration wakeupLinger = Duration.ofMillis(5);

        /** How often the relay's gauges are read from the database, 1s..1h (with a MeterRegistry). */
        private Duration gaugeInterval = Duration.ofSeconds(15);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isAutoStartup() {
            return autoStartup;
        }

        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public @Nullable String getRoutesFile() {
            return routesFile;
        }

        public void setRoutesFile(@Nullable String routesFile) {
            this.routesFile = routesFile;
        }

        public @Nullable String getUri() {
            return uri;
        }

        public void setUri(@Nullable String uri) {
            this.uri = uri;
        }

        public Duration getSleep() {
            return sleep;
        }

        public void setSleep(Duration sleep) {
            this.sleep = sleep;
        }

        public String getQueueType() {
            return queueType;
        }

        public void setQueueType(String queueType) {
            this.queueType = queueType;
        }

        public int getRouteBatchSize() {
            return routeBatchSize;
        }

        public void setRouteBatchSize(int routeBatchSize) {
            this.routeBatchSize = routeBatchSize;
        }

        public int getDispatchBatchSize() {
            return dispatchBatchSize;
        }

        public void setDispatchBatchSize(int dispatchBatchSize) {
            this.dispatchBatchSize = dispatchBatchSize;
        }

        public int getTimeoutBatchSize() {
            return timeoutBatchSize;
        }

        public void setTimeoutBatchSize(int timeoutBatchSize) {
            this.timeoutBatchSize = timeoutBatchSize;
        }

        public int getMaxInFlight() {
            return maxInFlight;
        }

        public void setMaxInFlight(int maxInFlight) {
            this.maxInFlight = maxInFlight;
        }

        public int getMaxQueueDepth() {
            return maxQueueDepth;
        }

        public void setMaxQueueDepth(int maxQueueDepth) {
            this.maxQueueDepth = maxQueueDepth;
        }

        public Duration getConfirmTimeout() {
            return confirmTimeout;
        }

        public void setConfirmTimeout(Duration confirmTimeout) {
            this.confirmTimeout = confirmTimeout;
        }

        public Duration getWakeupLinger() {
            return wakeupLinger;
        }

        public void setWakeupLinger(Duration wakeupLinger) {
            this.wakeupLinger = wakeupLinger;
        }

        public Duration getGaugeInterval() {
            return gaugeInterval;
        }

        public void setGaugeInterval(Duration gaugeInterval) {
            this.gaugeInterval = gaugeInterval;
        }
    }

    /** {@code outbox.worker.queues.<queue>.*}: one queue's settings; an unset one is the worker's. */
    public static class Queue {

        /** Handler threads of this queue, 1..1000. */
        private @Nullable Integer concurrency;

        /** Unacknowledged messages of this queue, 1..65535, at least its concurrency. */
        private @Nullable Integer prefetch;

        public @Nullable Integer getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(@Nullable Integer concurrency) {
            this.concurrency = concurrency;
        }

        public @Nullable Integer getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(@Nullable Integer prefetch) {
            this.prefetch = prefetch;
        }
    }
}
