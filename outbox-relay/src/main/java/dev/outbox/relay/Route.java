package dev.outbox.relay;

import java.time.Duration;
import java.util.List;

/**
 * One destination of an event type, of one of two kinds. Its settings are copied into each delivery
 * when the event is routed; later changes of the configuration do not touch existing deliveries.
 *
 * <ul>
 *   <li>{@link JobRoute} ({@link #job(String, String, List, Duration) Route.job}): a job message to a
 *       queue; a worker runs the handler of the job type and reports the result.</li>
 *   <li>{@link PublishRoute} ({@link #publish(String, String, String, List, Duration) Route.publish}):
 *       the event payload itself to an exchange with a routing key, message id = event id; completed on
 *       the broker's confirm. For integration events read by other services.</li>
 * </ul>
 *
 * <p>What the broker and the schema would refuse later is refused here: queue, exchange and routing
 * key are AMQP short strings of at most 255 bytes in UTF-8 (not characters) with no control
 * character and no unpaired surrogate; a queue must not begin with {@code amq.} (the broker reserves
 * those names); the exchange of a publish route is a named one (the default exchange {@code ""} is
 * refused, a pre-declared {@code amq.topic} is fine); the routing key may be empty. Durations are
 * whole seconds: a retry delay is 1 second to {@value #MAX_RETRY_DELAY_SECONDS} seconds (30 days), a
 * delivery timeout 1 second to {@value #MAX_DELIVERY_TIMEOUT_SECONDS} seconds (7 days), at most
 * {@value #MAX_RETRIES} retries; a sub-second, zero or negative duration is refused.
 *
 * <p>Invalid values are refused when the route is built, with an {@code IllegalArgumentException}
 * naming the field; {@link Routes.Builder#job} and {@link Routes.Builder#publish} (and the routes
 * file) refuse them with an {@link InvalidRouteException} that names the event type as well.
 *
 * <p>The number of retries is the length of {@code retryDelays}: 60 s and 120 s give a first attempt
 * and two retries, an empty list fails for good after the first error.
 *
 * <pre>{@code
 * Route.job("send-confirmation", "emails", RetrySchedule.seconds(5, 30, 120), Duration.ofMinutes(5))
 * Route.publish("order-events", "orders", "order.placed",
 *         RetrySchedule.exponential(Duration.ofSeconds(5), 3, Duration.ofHours(1), 6), Duration.ofMinutes(1))
 * }</pre>
 */
public sealed interface Route permits JobRoute, PublishRoute {

    /** At most this many retries: the schema refuses longer lists. */
    int MAX_RETRIES = 100;

    /** The longest pause before a retry: 30 days. */
    int MAX_RETRY_DELAY_SECONDS = 30 * 24 * 3600;

    /** The longest delivery timeout: 7 days. */
    int MAX_DELIVERY_TIMEOUT_SECONDS = 7 * 24 * 3600;

    /** The stable name of the route: the job type of a job route, the name of a publish route. */
    String name();

    /** The pause before each retry, whole seconds, possibly empty. */
    List<Duration> retryDelays();

    /** How long a dispatch may go without a result before it counts as lost. */
    Duration deliveryTimeout();

    /** Whether the events of one ordering key go in order, and the policy for a key whose head failed for good. */
    Ordering ordering();

    /** This route, ordered per ordering key, with the policy {@link Ordering#BLOCK} (docs/ordering.md). */
    Route ordered();

    /** This route with {@code ordering}. */
    Route ordered(Ordering ordering);

    /** A job route: a job message to {@code queue}. */
    static JobRoute job(String jobType, String queue, List<Duration> retryDelays, Duration deliveryTimeout) {
        return new JobRoute(jobType, queue, retryDelays, deliveryTimeout);
    }

    /** A publish route: the payload to {@code exchange} with {@code routingKey}. */
    static PublishRoute publish(
            String name, String exchange, String routingKey, List<Duration> retryDelays, Duration deliveryTimeout) {
        return new PublishRoute(name, exchange, routingKey, retryDelays, deliveryTimeout);
    }
}
