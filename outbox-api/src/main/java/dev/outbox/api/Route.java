package dev.outbox.api;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One destination of an event type. Its settings are copied into each delivery when the event is
 * routed; later changes of the configuration do not touch existing deliveries.
 *
 * <ul>
 *   <li>{@link #job(String, String, List, int) job}: a job message to {@code queue}; a worker runs
 *       the handler of {@code jobType} and reports the result.</li>
 *   <li>{@link #publish(String, String, String, List, int) publish}: the event payload itself to
 *       {@code exchange} with {@code routingKey}, message id = event id; completed on the broker's
 *       confirm. For integration events read by other services.</li>
 * </ul>
 *
 * <p>Invalid values are refused when the route is built, with an {@code IllegalArgumentException}
 * naming the field; {@link Routes.Builder#job} and {@link Routes.Builder#publish} (and the routes
 * file) refuse them with an {@link InvalidRouteException} that names the event type as well.
 *
 * <p>The number of retries is the length of {@code retryDelaysSeconds}: {@code [60, 120]} gives a
 * first attempt and two retries, {@code []} fails for good after the first error.
 *
 * <pre>{@code
 * Route.job("send-confirmation", "emails", List.of(5, 30, 120), 300)
 * Route.publish("order-events", "orders", "order.placed", RetrySchedule.exponential(5, 3, 3600, 6), 60)
 * }</pre>
 *
 * @param kind job or publish
 * @param jobType the stable name of the route's job (for publish routes, a name for the route)
 * @param queue the queue of a job route; for a publish route, the exchange
 * @param exchange the exchange of a publish route (a named one, non-empty); null for a job route
 * @param routingKey the routing key of a publish route; null for a job route
 * @param retryDelaysSeconds the pause before each retry, positive whole seconds, possibly empty
 * @param deliveryTimeoutSeconds how long a dispatch may go without a result before it counts as lost
 */
public record Route(RouteKind kind, String jobType, String queue, @Nullable String exchange, @Nullable String routingKey,
        List<Integer> retryDelaysSeconds, int deliveryTimeoutSeconds) {

    /** At most this many retries: the schema refuses longer lists. */
    public static final int MAX_RETRIES = 100;

    public Route {
        Objects.requireNonNull(kind, "Route.kind");
        if (jobType == null || !Names.isStableName(jobType)) {
            throw new IllegalArgumentException("jobType must match " + Names.STABLE_NAME.pattern() + ", got '" + jobType + "'");
        }
        if (kind == RouteKind.PUBLISH && exchange != null && exchange.isEmpty()) {
            throw new IllegalArgumentException("exchange of a publish route must be a named exchange (non-empty), got ''");
        }
        if (queue == null || queue.isEmpty() || queue.length() > 255) {
            throw new IllegalArgumentException("queue must be a non-empty string of at most 255 characters, got '" + queue + "'");
        }
        if (kind == RouteKind.JOB && (exchange != null || routingKey != null)) {
            throw new IllegalArgumentException("a job route has no exchange or routingKey");
        }
        if (kind == RouteKind.PUBLISH) {
            if (exchange == null || exchange.length() > 255) {
                throw new IllegalArgumentException("exchange of a publish route must be a string of at most 255 characters");
            }
            if (routingKey == null || routingKey.length() > 255) {
                throw new IllegalArgumentException("routingKey of a publish route must be a string of at most 255 characters");
            }
            if (!exchange.equals(queue)) {
                throw new IllegalArgumentException("queue of a publish route must be its exchange '" + exchange + "', got '" + queue + "'");
            }
        }
        if (retryDelaysSeconds == null) {
            throw new IllegalArgumentException("retryDelaysSeconds must be a list (possibly empty), got null");
        }
        if (retryDelaysSeconds.size() > MAX_RETRIES) {
            throw new IllegalArgumentException("retryDelaysSeconds has " + retryDelaysSeconds.size() + " entries, at most " + MAX_RETRIES);
        }
        for (int i = 0; i < retryDelaysSeconds.size(); i++) {
            Integer delay = retryDelaysSeconds.get(i);
            if (delay == null || delay <= 0) {
                throw new IllegalArgumentException("retryDelaysSeconds[" + i + "] must be a positive whole number of seconds, got " + delay);
            }
        }
        retryDelaysSeconds = List.copyOf(retryDelaysSeconds);
        if (deliveryTimeoutSeconds <= 0) {
            throw new IllegalArgumentException("deliveryTimeoutSeconds must be a positive whole number of seconds, got " + deliveryTimeoutSeconds);
        }
    }

    /** A job route: a job message to {@code queue}. */
    public static Route job(String jobType, String queue, List<Integer> retryDelaysSeconds, int deliveryTimeoutSeconds) {
        return new Route(RouteKind.JOB, jobType, queue, null, null, retryDelaysSeconds, deliveryTimeoutSeconds);
    }

    /** A publish route: the payload to {@code exchange} with {@code routingKey}. */
    public static Route publish(String name, String exchange, String routingKey, List<Integer> retryDelaysSeconds,
            int deliveryTimeoutSeconds) {
        return new Route(RouteKind.PUBLISH, name, exchange, exchange, routingKey, retryDelaysSeconds, deliveryTimeoutSeconds);
    }
}
