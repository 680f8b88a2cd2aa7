package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.api.LogText;
import dev.outbox.relay.InvalidRouteException;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.QueueType;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundles;

/**
 * The relay inside the application from {@code outbox.relay.*}, the tables and NOTIFY channel of
 * {@code outbox.*}, and its routes: those of {@code outbox.relay.routes-file} (read by the relay
 * service's parser, {@link Routes#fromFile}) and of the application's {@link Routes} beans, together.
 * Every check names the property at fault, the relay's own checks too.
 */
final class EmbeddedRelay {

    static final String ENABLED = "outbox.relay.enabled";
    static final String ROUTES_FILE = "outbox.relay.routes-file";
    private static final Pattern FIELD = Pattern.compile("OutboxRelay\\.([a-zA-Z]+)");

    private EmbeddedRelay() {}

    /** The builder of the embedded relay, checked but for the meters ({@link #build}). */
    static OutboxRelay.Builder builder(
            DataSource dataSource,
            OutboxProperties properties,
            Map<String, Routes> routeBeans,
            Binder binder,
            @Nullable SslBundles bundles) {
        OutboxProperties.Relay settings = properties.getRelay();
        OutboxRelay.Builder builder = OutboxRelay.builder()
                .dataSource(dataSource)
                .connectionFactory(BrokerConnection.of("relay", settings.getUri(), binder, bundles))
                .routes(routes(settings.getRoutesFile(), routeBeans))
                .tables(properties.tables())
                .notifications(properties.isNotifications())
                .queueType(queueType(settings.getQueueType()))
                .sleep(settings.getSleep())
                .routeBatchSize(settings.getRouteBatchSize())
                .dispatchBatchSize(settings.getDispatchBatchSize())
                .timeoutBatchSize(settings.getTimeoutBatchSize())
                .maxInFlight(settings.getMaxInFlight())
                .maxQueueDepth(settings.getMaxQueueDepth())
                .confirmTimeout(settings.getConfirmTimeout())
                .wakeupLinger(settings.getWakeupLinger())
                .gaugeInterval(settings.getGaugeInterval());
        return properties.isNotifications() ? builder.notifyChannel(properties.getNotifyChannel()) : builder;
    }

    /**
     * Builds the relay; the builder's checks, which name its fields ({@code OutboxRelay.sleep}), are told
     * with the properties that set them ({@code outbox.relay.sleep}).
     */
    static OutboxRelay build(OutboxRelay.Builder builder) {
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            String message = String.valueOf(e.getMessage());
            Matcher field = FIELD.matcher(message);
            if (!field.find()) {
                throw e;
            }
            String property = property(field.group(1));
            throw new OutboxPropertyException(
                    property, FIELD.matcher(message).replaceAll(m -> property(m.group(1))), e);
        }
    }

    /** {@code outbox.relay.max-in-flight} of the builder's {@code maxInFlight}; {@code notifyChannel} is {@code outbox.notify-channel}. */
    static String property(String field) {
        String kebab = field.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
        return field.equals("notifyChannel") ? "outbox.notify-channel" : "outbox.relay." + kebab;
    }

    /**
     * The routes of the file and of the beans; none at all fails, naming both ways to give them. A route
     * that two of them give, and every problem of the file, fails naming where it comes from.
     */
    static Routes routes(@Nullable String routesFile, Map<String, Routes> beans) {
        Routes.Builder all = Routes.builder();
        boolean any = false;
        if (routesFile != null && !routesFile.isBlank()) {
            Routes file;
            try {
                file = Routes.fromFile(Path.of(routesFile));
            } catch (InvalidRouteException | java.nio.file.InvalidPathException e) {
                throw new OutboxPropertyException(ROUTES_FILE, ROUTES_FILE + ": " + e.getMessage(), e);
            }
            any |= add(all, file, ROUTES_FILE + " (" + routesFile + ")");
        }
        for (Map.Entry<String, Routes> bean : beans.entrySet()) {
            any |= add(all, bean.getValue(), "the Routes bean '" + bean.getKey() + "'");
        }
        if (!any) {
            throw new OutboxPropertyException(
                    ENABLED,
                    ENABLED + "=true, but the relay has no routes: set " + ROUTES_FILE + " or declare a Routes bean");
        }
        return all.build();
    }

    private static boolean add(Routes.Builder all, Routes routes, String source) {
        for (String eventType : routes.eventTypes()) {
            List<Route> list = routes.of(eventType);
            try {
                all.route(eventType, list);
            } catch (InvalidRouteException e) {
                throw new OutboxPropertyException(
                        source.startsWith(ROUTES_FILE) ? ROUTES_FILE : ENABLED,
                        source + ": " + e.getMessage() + " (the routes file and the Routes beans together)",
                        e);
            }
        }
        return !routes.eventTypes().isEmpty();
    }

    private static QueueType queueType(String value) {
        try {
            return QueueType.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new OutboxPropertyException(
                    "outbox.relay.queue-type",
                    "outbox.relay.queue-type must be classic or quorum, got '" + LogText.of(value) + "'",
                    e);
        }
    }
}
