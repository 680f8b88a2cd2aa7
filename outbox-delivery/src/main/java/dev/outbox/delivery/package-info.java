/**
 * What a route becomes for the engine: the {@link dev.outbox.delivery.RouteTable} of each event
 * type's {@link dev.outbox.delivery.DeliveryTemplate}s, as {@code Routes.toRouteTable()} builds it,
 * and {@link dev.outbox.delivery.LogText} for text quoted in messages. The state machine itself is
 * in {@code dev.outbox.delivery.internal}.
 */
@NullMarked
package dev.outbox.delivery;

import org.jspecify.annotations.NullMarked;
