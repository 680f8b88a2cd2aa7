package dev.outbox.relay.internal;

import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.delivery.RouteTable;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The relay's routes as the state machine's input (T1 copies each template into its deliveries). */
public final class RouteTables {

    private RouteTables() {}

    public static RouteTable of(Routes routes) {
        Map<String, List<DeliveryTemplate>> byEventType = new LinkedHashMap<>();
        for (String eventType : routes.eventTypes()) {
            byEventType.put(eventType, routes.of(eventType).stream().map(RouteTables::template).toList());
        }
        return new RouteTable(byEventType);
    }

    private static DeliveryTemplate template(Route route) {
        return new DeliveryTemplate(route.kind(), route.jobType(), route.queue(), route.exchange(), route.routingKey(),
                route.retryDelaysSeconds(), route.deliveryTimeoutSeconds());
    }
}
