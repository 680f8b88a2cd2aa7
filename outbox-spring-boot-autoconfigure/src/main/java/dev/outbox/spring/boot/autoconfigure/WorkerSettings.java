package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.api.EventSerializer;
import dev.outbox.worker.OutboxWorker;
import dev.outbox.worker.QueueSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundles;

/**
 * The auto-configured worker from the {@link OutboxJobHandler} beans and {@code outbox.worker.*}:
 * every check names the bean or the property at fault, so that a bad setting fails the start with
 * a message that says where to look.
 */
final class WorkerSettings {

    static final String TIMEOUT_PER_SHUTDOWN_PHASE = "spring.lifecycle.timeout-per-shutdown-phase";
    /** Boot's default of {@value #TIMEOUT_PER_SHUTDOWN_PHASE}. */
    static final Duration DEFAULT_SHUTDOWN_PHASE = Duration.ofSeconds(30);

    private static final Duration RESERVE = Duration.ofSeconds(5);

    private WorkerSettings() {}

    /** The builder of a worker for the handler beans of {@code beans}, checked but for the meters. */
    static OutboxWorker.Builder builder(
            ListableBeanFactory beans,
            DataSource dataSource,
            OutboxProperties properties,
            EventSerializer serializer,
            Binder binder) {
        OutboxProperties.Worker settings = properties.getWorker();
        OutboxWorker.Builder builder = OutboxWorker.builder()
                .dataSource(dataSource)
                .connectionFactory(BrokerConnection.of(
                        "worker",
                        settings.getUri(),
                        binder,
                        beans.getBeanProvider(SslBundles.class).getIfAvailable()))
                .tables(properties.tables())
                .serializer(serializer)
                .name(settings.getName())
                .shutdownGrace(shutdownGrace(settings.getShutdownGrace(), binder))
                .shutdownHook(false); // the context's own shutdown stops the worker, in its phase
        Map<String, String> beanOfJobType = new LinkedHashMap<>();
        Map<String, QueueSettings> queues = new LinkedHashMap<>();
        Map<String, ?> handlers = beans.getBeansOfType(OutboxJobHandler.class);
        for (Map.Entry<String, ?> bean : handlers.entrySet()) {
            OutboxJobHandler<?> handler = (OutboxJobHandler<?>) bean.getValue();
            String other = beanOfJobType.putIfAbsent(handler.jobType(), bean.getKey());
            if (other != null) {
                throw new IllegalStateException("job type '" + handler.jobType() + "' has two handler beans, '" + other
                        + "' and '" + bean.getKey() + "': one job type has one handler");
            }
            register(builder, handler);
            queues.computeIfAbsent(handler.queue(), queue -> queueSettings(settings, queue));
        }
        for (String queue : settings.getQueues().keySet()) {
            if (!queues.containsKey(queue)) {
                throw new IllegalArgumentException(queueProperty(queue) + ": no handler bean reads queue '" + queue
                        + "' (the handler beans read " + queues.keySet() + ")");
            }
        }
        queues.forEach(builder::queue);
        return builder;
    }

    private static <T> void register(OutboxWorker.Builder builder, OutboxJobHandler<T> handler) {
        builder.handler(handler.jobType(), handler.eventClass(), handler.handler());
    }

    /** The settings of {@code queue}: its own in {@code outbox.worker.queues}, else the worker's. */
    static QueueSettings queueSettings(OutboxProperties.Worker settings, String queue) {
        OutboxProperties.Queue own = settings.getQueues().get(queue);
        String ownPrefix = queueProperty(queue) + ".";
        Integer ownConcurrency = own == null ? null : own.getConcurrency();
        Integer ownPrefetch = own == null ? null : own.getPrefetch();
        String concurrencyProperty = ownConcurrency != null ? ownPrefix + "concurrency" : "outbox.worker.concurrency";
        String prefetchProperty = ownPrefetch != null ? ownPrefix + "prefetch" : "outbox.worker.prefetch";
        int concurrency = ownConcurrency != null ? ownConcurrency : settings.getConcurrency();
        int prefetch = ownPrefetch != null ? ownPrefetch : settings.getPrefetch();
        try {
            return QueueSettings.of(concurrency, prefetch);
        } catch (IllegalArgumentException e) {
            // the worker's own rules, told with the names of the properties that set the values
            String message = String.valueOf(e.getMessage())
                    .replace("QueueSettings.concurrency", concurrencyProperty)
                    .replace("QueueSettings.prefetch", prefetchProperty)
                    .replace("the concurrency", concurrencyProperty);
            throw new OutboxPropertyException(
                    message.contains(concurrencyProperty) ? concurrencyProperty : prefetchProperty, message, e);
        }
    }

    /** {@code outbox.worker.queues.emails}, or {@code outbox.worker.queues[Jobs.Mail]} for a name Boot keeps only in brackets. */
    static String queueProperty(String queue) {
        return "outbox.worker.queues" + (queue.matches("[a-z0-9][a-z0-9-]*") ? "." + queue : "[" + queue + "]");
    }

    /**
     * {@code outbox.worker.shutdown-grace}, shorter than the context's shutdown phase, so that jobs still
     * running are marked {@code worker_died} before the context goes on to close the {@code DataSource}.
     */
    static Duration shutdownGrace(@Nullable Duration configured, Binder binder) {
        Duration phase = binder.bind(TIMEOUT_PER_SHUTDOWN_PHASE, Duration.class).orElse(DEFAULT_SHUTDOWN_PHASE);
        if (configured == null) {
            Duration reserve = phase.compareTo(RESERVE.multipliedBy(2)) < 0 ? phase.dividedBy(2) : RESERVE;
            return phase.minus(reserve);
        }
        if (configured.isNegative() || configured.compareTo(phase) >= 0) {
            throw new IllegalArgumentException("outbox.worker.shutdown-grace (" + configured
                    + ") must be at least 0 and shorter than " + TIMEOUT_PER_SHUTDOWN_PHASE + " (" + phase
                    + "), or the DataSource may close under the jobs still running");
        }
        return configured;
    }
}
