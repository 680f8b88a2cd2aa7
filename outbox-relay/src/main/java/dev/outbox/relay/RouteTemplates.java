package dev.outbox.relay;

import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.RouteTable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The relay's routes as the state machine's input (T1 copies each template into its deliveries). */
final class RouteTemplates {

    private RouteTemplates() {}

    static RouteTable of(Routes routes) {
        Map<String, List<DeliveryTemplate>> byEventType = new LinkedHashMap<>();
        for (String eventType : routes.eventTypes()) {
            byEventType.put(
                    eventType,
                    routes.of(eventType).stream().map(RouteTemplates::template).toList());
        }
        return new RouteTable(byEventType);
    }

    /**
     * A job route's queue is its queue; a publish route's queue column holds its exchange (the
     * delivery's unique key is event, job type and queue). Durations become the schema's seconds.
     */
    static DeliveryTemplate template(Route route) {
        List<Integer> delays = route.retryDelays().stream()
                .map(d -> Math.toIntExact(d.toSeconds()))
                .toList();
        int timeout = Math.toIntExact(route.deliveryTimeout().toSeconds());
        if (route instanceof JobRoute job) {
            return new DeliveryTemplate(
                    RouteKind.JOB, job.jobType(), job.queue(), null, null, delays, timeout, policy(route));
        }
        PublishRoute publish = (PublishRoute) route;
        return new DeliveryTemplate(
                RouteKind.PUBLISH,
                publish.name(),
                publish.exchange(),
                publish.exchange(),
                publish.routingKey(),
                delays,
                timeout,
                policy(route));
    }

    private static @Nullable String policy(Route route) {
        return switch (route.ordering()) {
            case UNORDERED -> null;
            case BLOCK -> DeliveryTemplate.BLOCK;
            case SKIP -> DeliveryTemplate.SKIP;
        };
    }
}
