package dev.outbox.relay;

import dev.outbox.api.Names;
import dev.outbox.delivery.LogText;
import dev.outbox.delivery.RouteTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * For each event type, the non-empty list of its {@link Route}s. Built in code or loaded from a
 * routes file (YAML or JSON) so that a standalone relay needs none of the application's classes.
 *
 * <pre>{@code
 * Routes routes = Routes.builder()
 *     .job("order.placed", "send-confirmation", "emails", RetrySchedule.seconds(5, 30), Duration.ofMinutes(5))
 *     .publish("order.placed", "order-events", "orders", "order.placed", RetrySchedule.seconds(5), Duration.ofMinutes(1))
 *     .build();
 * }</pre>
 *
 * <p>Invalid routes are refused when built: {@link Route}'s own checks name the field, and
 * {@link Builder#job}, {@link Builder#publish} and the routes file add the event type (and the
 * file's path) to the message.
 */
public final class Routes {

    private final Map<String, List<Route>> byEventType;

    private Routes(Map<String, List<Route>> byEventType) {
        this.byEventType = Map.copyOf(byEventType);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads a routes file; the format follows the extension ({@code .yaml}/{@code .yml} or
     * {@code .json}). See {@link RoutesFile} for the format.
     *
     * @throws InvalidRouteException naming the line or path of the problem
     */
    public static Routes fromFile(Path file) {
        return RoutesFile.read(file);
    }

    /** The routes of {@code eventType}; empty when it has none (its events stay unrouted). */
    public List<Route> of(String eventType) {
        return byEventType.getOrDefault(eventType, List.of());
    }

    /** Every event type with routes. */
    public Set<String> eventTypes() {
        return byEventType.keySet();
    }

    /** Every route of every event type. */
    public List<Route> all() {
        return byEventType.values().stream().flatMap(List::stream).toList();
    }

    /**
     * These routes as the state machine's input: outbox-delivery's {@code RouteTable}, which
     * {@code RelayTransitions.route} (T1) copies into each event's deliveries. For code that drives
     * the transitions itself, such as the test kit (outbox-testkit); the relay does this on its own.
     */
    public RouteTable toRouteTable() {
        return RouteTemplates.of(this);
    }

    @Override
    public String toString() {
        return "Routes" + byEventType;
    }

    /**
     * Collects routes per event type; refuses, naming the event type and the field, an invalid route,
     * an empty list and a route given twice (same job type and queue).
     */
    public static final class Builder {
        private final Map<String, List<Route>> routes = new LinkedHashMap<>();

        private Builder() {}

        /**
         * Adds a job route of {@code eventType}, checked here: an invalid field is refused with an
         * {@link InvalidRouteException} naming the event type and the field.
         */
        public Builder job(
                String eventType, String jobType, String queue, List<Duration> retryDelays, Duration deliveryTimeout) {
            checkEventType(eventType);
            Route route;
            try {
                route = Route.job(jobType, queue, retryDelays, deliveryTimeout);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new InvalidRouteException(
                        "event type '" + eventType + "': invalid job route: " + e.getMessage(), e);
            }
            return route(eventType, List.of(route));
        }

        /**
         * Adds a publish route of {@code eventType}, checked here: an invalid field is refused with an
         * {@link InvalidRouteException} naming the event type and the field.
         */
        public Builder publish(
                String eventType,
                String name,
                String exchange,
                String routingKey,
                List<Duration> retryDelays,
                Duration deliveryTimeout) {
            checkEventType(eventType);
            Route route;
            try {
                route = Route.publish(name, exchange, routingKey, retryDelays, deliveryTimeout);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new InvalidRouteException(
                        "event type '" + eventType + "': invalid publish route: " + e.getMessage(), e);
            }
            return route(eventType, List.of(route));
        }

        /** Adds routes of {@code eventType}. */
        public Builder route(String eventType, Route... routes) {
            return route(eventType, List.of(routes));
        }

        /** Adds routes of {@code eventType}. */
        public Builder route(String eventType, List<Route> routes) {
            checkEventType(eventType);
            if (routes.isEmpty()) {
                throw new InvalidRouteException("event type '" + eventType + "': the list of routes must not be empty");
            }
            List<Route> list = this.routes.computeIfAbsent(eventType, k -> new java.util.ArrayList<>());
            for (Route route : routes) {
                for (Route existing : list) {
                    if (existing.name().equals(route.name())
                            && destination(existing).equals(destination(route))) {
                        throw new InvalidRouteException("event type '" + eventType + "': route (" + route.name()
                                + " to " + LogText.of(destination(route)) + ") is given twice");
                    }
                }
                list.add(route);
            }
            return this;
        }

        public Routes build() {
            Map<String, List<Route>> copy = new LinkedHashMap<>();
            routes.forEach((type, list) -> copy.put(type, List.copyOf(list)));
            return new Routes(copy);
        }

        /** The queue of a job route, the exchange of a publish route: with the name, what makes a delivery unique per event. */
        private static String destination(Route route) {
            return route instanceof JobRoute job ? job.queue() : ((PublishRoute) route).exchange();
        }

        private static void checkEventType(String eventType) {
            if (eventType == null || !Names.isStableName(eventType)) {
                throw new InvalidRouteException("event type '" + LogText.of(eventType) + "': an event type must match "
                        + Names.STABLE_NAME.pattern());
            }
        }
    }
}
