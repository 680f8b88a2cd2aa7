package dev.outbox.delivery;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What one route copies into each delivery T1 creates for it: the kind, the job type (or publish
 * route name), the queue, the exchange and routing key of a publish route, and the retry and timeout
 * snapshot. The relay's routes ({@code dev.outbox.relay.Route}) are turned into these once, so that
 * the state machine needs no routing configuration of its own.
 */
public record DeliveryTemplate(RouteKind kind, String jobType, String queue, @Nullable String exchange, @Nullable String routingKey,
        List<Integer> retryDelaysSeconds, int deliveryTimeoutSeconds) {

    public DeliveryTemplate {
        retryDelaysSeconds = List.copyOf(retryDelaysSeconds);
    }
}
