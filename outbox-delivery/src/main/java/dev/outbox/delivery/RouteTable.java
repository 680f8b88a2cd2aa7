package dev.outbox.delivery;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The delivery templates of each routed event type: T1's input. */
public record RouteTable(Map<String, List<DeliveryTemplate>> byEventType) {

    public RouteTable {
        Map<String, List<DeliveryTemplate>> copy = new LinkedHashMap<>();
        byEventType.forEach((type, templates) -> copy.put(type, List.copyOf(templates)));
        byEventType = Collections.unmodifiableMap(copy);
    }

    /** The templates of {@code eventType}, empty when it has no route. */
    public List<DeliveryTemplate> of(String eventType) {
        return byEventType.getOrDefault(eventType, List.of());
    }

    /** Every template, each event type's in order. */
    public List<DeliveryTemplate> all() {
        return byEventType.values().stream().flatMap(List::stream).toList();
    }
}
