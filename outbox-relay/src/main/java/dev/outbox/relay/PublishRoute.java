package dev.outbox.relay;

import dev.outbox.delivery.amqp.AmqpNames;
import java.time.Duration;
import java.util.List;

/**
 * A {@link Route} that publishes the event payload itself to {@code exchange} with
 * {@code routingKey}, message id = event id; completed on the broker's confirm. The checks are
 * {@link Route}'s.
 *
 * @param name a stable name for the route (stored as the delivery's job type)
 * @param exchange a named exchange (non-empty)
 * @param routingKey the routing key, possibly empty
 * @param retryDelays the pause before each retry, whole seconds, possibly empty
 * @param deliveryTimeout how long a publish may go without a confirm before it counts as lost
 * @param ordering whether the events of one ordering key are published in order, one unconfirmed message per key
 */
public record PublishRoute(
        String name,
        String exchange,
        String routingKey,
        List<Duration> retryDelays,
        Duration deliveryTimeout,
        Ordering ordering)
        implements Route {

    public PublishRoute {
        RouteChecks.stableName("name", name);
        RouteChecks.refuse(
                "exchange of a publish route",
                exchange != null && exchange.isEmpty()
                        ? "must be a named exchange (non-empty), got ''"
                        : AmqpNames.shortStringProblem(exchange, false));
        RouteChecks.refuse("routingKey of a publish route", AmqpNames.shortStringProblem(routingKey, true));
        retryDelays = RouteChecks.retryDelays(retryDelays);
        RouteChecks.deliveryTimeout(deliveryTimeout);
        RouteChecks.ordering(ordering);
    }

    /** An unordered publish route. */
    public PublishRoute(
            String name, String exchange, String routingKey, List<Duration> retryDelays, Duration deliveryTimeout) {
        this(name, exchange, routingKey, retryDelays, deliveryTimeout, Ordering.UNORDERED);
    }

    /** This route, ordered per ordering key; a head that fails for good blocks its key ({@link Ordering#BLOCK}). */
    @Override
    public PublishRoute ordered() {
        return ordered(Ordering.BLOCK);
    }

    /** This route with {@code ordering}. */
    @Override
    public PublishRoute ordered(Ordering ordering) {
        return new PublishRoute(name, exchange, routingKey, retryDelays, deliveryTimeout, ordering);
    }
}
