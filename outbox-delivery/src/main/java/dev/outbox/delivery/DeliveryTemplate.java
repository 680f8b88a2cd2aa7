package dev.outbox.delivery;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What one route copies into each delivery T1 creates for it: the kind, the job type (or publish
 * route name), the queue, the exchange and routing key of a publish route, and the retry and timeout
 * snapshot. The relay's routes ({@code dev.outbox.relay.Route}) are turned into these once, so that
 * the state machine needs no routing configuration of its own. {@code orderingPolicy} is null for an
 * unordered route, {@value #BLOCK} or {@value #SKIP} for an ordered one (docs/ordering.md).
 */
public record DeliveryTemplate(
        RouteKind kind,
        String jobType,
        String queue,
        @Nullable String exchange,
        @Nullable String routingKey,
        List<Integer> retryDelaysSeconds,
        int deliveryTimeoutSeconds,
        @Nullable String orderingPolicy) {

    /** An ordered route's key blocks when its head fails for good. */
    public static final String BLOCK = "block";
    /** An ordered route's key goes on with the next event when its head fails for good. */
    public static final String SKIP = "skip";

    public DeliveryTemplate {
        retryDelaysSeconds = List.copyOf(retryDelaysSeconds);
        if (orderingPolicy != null && !orderingPolicy.equals(BLOCK) && !orderingPolicy.equals(SKIP)) {
            throw new IllegalArgumentException(
                    "orderingPolicy must be null, 'block' or 'skip', got '" + LogText.of(orderingPolicy) + "'");
        }
    }

    /** An unordered route's template. */
    public DeliveryTemplate(
            RouteKind kind,
            String jobType,
            String queue,
            @Nullable String exchange,
            @Nullable String routingKey,
            List<Integer> retryDelaysSeconds,
            int deliveryTimeoutSeconds) {
        this(kind, jobType, queue, exchange, routingKey, retryDelaysSeconds, deliveryTimeoutSeconds, null);
    }

    /** Whether the route delivers the events of one ordering key in order. */
    public boolean ordered() {
        return orderingPolicy != null;
    }
}
