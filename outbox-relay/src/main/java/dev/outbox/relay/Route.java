package dev.outbox.relay;

import dev.outbox.api.Names;
import dev.outbox.delivery.LogText;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.amqp.AmqpNames;
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
 * <p>What the broker and the schema would refuse later is refused here: queue, exchange and routing
 * key are AMQP short strings of at most 255 bytes in UTF-8 (not characters) with no control
 * character and no unpaired surrogate; a queue must not begin with {@code amq.} (the broker reserves
 * those names); the exchange of a publish route is a named one (the default exchange {@code ""} is
 * refused, a pre-declared {@code amq.topic} is fine); the routing key may be empty. A retry delay is
 * 1 second to {@value #MAX_RETRY_DELAY_SECONDS} seconds (30 days), a delivery timeout 1 second to
 * {@value #MAX_DELIVERY_TIMEOUT_SECONDS} seconds (7 days), at most {@value #MAX_RETRIES} retries.
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

    /** The longest pause before a retry: 30 days. */
    public static final int MAX_RETRY_DELAY_SECONDS = 30 * 24 * 3600;

    /** The longest delivery timeout: 7 days. */
    public static final int MAX_DELIVERY_TIMEOUT_SECONDS = 7 * 24 * 3600;

    public Route {
        Objects.requireNonNull(kind, "Route.kind");
        if (jobType == null || !Names.isStableName(jobType)) {
            throw new IllegalArgumentException("jobType must match " + Names.STABLE_NAME.pattern() + ", got '" + LogText.of(jobType) + "'");
        }
        if (kind == RouteKind.JOB) {
            refuse("queue", AmqpNames.queueProblem(queue));
            if (exchange != null || routingKey != null) {
                throw new IllegalArgumentException("a job route has no exchange or routingKey");
            }
        } else {
            refuse("exchange of a publish route", exchange != null && exchange.isEmpty()
                    ? "must be a named exchange (non-empty), got ''" : AmqpNames.shortStringProblem(exchange, false));
            refuse("routingKey of a publish route", AmqpNames.shortStringProblem(routingKey, true));
            if (!exchange.equals(queue)) {
                throw new IllegalArgumentException("queue of a publish route must be its exchange '" + LogText.of(exchange) + "', got '"
                        + LogText.of(queue) + "'");
            }
        }
        if (retryDelaysSeconds == null) {
            throw new IllegalArgumentException("retryDelaysSeconds must be a list (possibly empty), got null");
        }
        if (retryDelaysSeconds.size() > MAX_RETRIES) {
            throw new IllegalArgumentException("retryDelaysSeconds has " + retryDelaysSeconds.size() + " entries, at most " + MAX_RETRIES);
        }
        for (int i = 0; i < retryDelaysSeconds.size(); i++) {
            refuse("retryDelaysSeconds[" + i + "]", delayProblem(retryDelaysSeconds.get(i)));
        }
        retryDelaysSeconds = List.copyOf(retryDelaysSeconds);
        refuse("deliveryTimeoutSeconds", timeoutProblem(deliveryTimeoutSeconds));
    }

    /** What is wrong with {@code seconds} as a retry delay, or null: 1..{@value #MAX_RETRY_DELAY_SECONDS}. */
    static @Nullable String delayProblem(@Nullable Integer seconds) {
        if (seconds == null || seconds <= 0) {
            return "must be a positive whole number of seconds, got " + seconds;
        }
        return seconds > MAX_RETRY_DELAY_SECONDS
                ? "must be at most " + MAX_RETRY_DELAY_SECONDS + " seconds (30 days), got " + seconds : null;
    }

    /** What is wrong with {@code seconds} as a delivery timeout, or null: 1..{@value #MAX_DELIVERY_TIMEOUT_SECONDS}. */
    static @Nullable String timeoutProblem(int seconds) {
        if (seconds <= 0) {
            return "must be a positive whole number of seconds, got " + seconds;
        }
        return seconds > MAX_DELIVERY_TIMEOUT_SECONDS
                ? "must be at most " + MAX_DELIVERY_TIMEOUT_SECONDS + " seconds (7 days), got " + seconds : null;
    }

    private static void refuse(String field, @Nullable String problem) {
        if (problem != null) {
            throw new IllegalArgumentException(field + " " + problem);
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
