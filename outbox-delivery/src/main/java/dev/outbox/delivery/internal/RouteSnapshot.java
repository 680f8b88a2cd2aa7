package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;

import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.RouteTable;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.enums.OutboxRouteKind;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jooq.CommonTableExpression;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Param;
import org.jooq.Select;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The routes of a relay as parallel arrays, the input of T1's one statement: each route has a number
 * (its index in the arrays, from 1), and a routing batch is a list of (delivery id, event id, route
 * number) pairs, sent as three more arrays. Inside PostgreSQL the pairs of the locked events become
 * delivery rows, with the route's settings copied into each: the SQL text stays the same whatever
 * the batch, so it is parsed once per connection by pgjdbc.
 */
final class RouteSnapshot {

    /** The columns T1 writes, in the order of {@link Pairs#deliveries}. */
    static final List<Field<?>> COLUMNS = List.of(
            OUTBOX_DELIVERIES.ID,
            OUTBOX_DELIVERIES.EVENT_ID,
            OUTBOX_DELIVERIES.KIND,
            OUTBOX_DELIVERIES.JOB_TYPE,
            OUTBOX_DELIVERIES.QUEUE_NAME,
            OUTBOX_DELIVERIES.EXCHANGE,
            OUTBOX_DELIVERIES.ROUTING_KEY,
            OUTBOX_DELIVERIES.RETRY_DELAYS_SECONDS,
            OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_SECONDS,
            OUTBOX_DELIVERIES.STATUS,
            OUTBOX_DELIVERIES.ATTEMPTS,
            OUTBOX_DELIVERIES.AVAILABLE_AT,
            OUTBOX_DELIVERIES.CREATED_AT,
            OUTBOX_DELIVERIES.UPDATED_AT,
            OUTBOX_DELIVERIES.ORDERING_KEY,
            OUTBOX_DELIVERIES.ORDERING_POSITION,
            OUTBOX_DELIVERIES.ORDERING_POLICY);

    private static final Name PAIRS = DSL.name("pairs");
    private static final Field<UUID[]> DELIVERY_IDS = column("delivery_ids", SQLDataType.UUID.array());
    private static final Field<UUID[]> EVENT_IDS = column("event_ids", SQLDataType.UUID.array());
    private static final Field<Integer[]> ROUTE_NUMBERS = column("route_numbers", SQLDataType.INTEGER.array());
    private static final Field<Boolean[]> PUBLISH = column("publish", SQLDataType.BOOLEAN.array());
    private static final Field<String[]> JOB_TYPES = column("job_types", SQLDataType.VARCHAR.array());
    private static final Field<String[]> QUEUES = column("queues", SQLDataType.VARCHAR.array());
    private static final Field<String[]> EXCHANGES = column("exchanges", SQLDataType.VARCHAR.array());
    private static final Field<String[]> ROUTING_KEYS = column("routing_keys", SQLDataType.VARCHAR.array());
    /** Each route's retry delays as an array literal ({@code {5,30}}): PostgreSQL has no arrays of arrays of different lengths. */
    private static final Field<String[]> RETRY_DELAYS = column("retry_delays", SQLDataType.VARCHAR.array());

    private static final Field<Integer[]> TIMEOUTS = column("timeouts", SQLDataType.INTEGER.array());
    /** Each route's ordering policy ({@code block}, {@code skip}), null for an unordered route. */
    private static final Field<String[]> POLICIES = column("policies", SQLDataType.VARCHAR.array());

    private static final Field<Integer> N = DSL.field(DSL.name("s", "n"), SQLDataType.INTEGER);
    private static final Field<Integer> ROUTE = DSL.arrayGet(ROUTE_NUMBERS, N);

    private final Map<DeliveryTemplate, Integer> numbers = new HashMap<>();
    private final Boolean[] publish;
    private final String[] jobTypes;
    private final String[] queues;
    private final String[] exchanges;
    private final String[] routingKeys;
    private final String[] retryDelays;
    private final Integer[] timeouts;
    private final String[] policies;

    RouteSnapshot(RouteTable routes) {
        List<DeliveryTemplate> all = new ArrayList<>();
        for (DeliveryTemplate route : routes.all()) {
            if (numbers.putIfAbsent(route, all.size() + 1) == null) {
                all.add(route);
            }
        }
        int n = all.size();
        publish = new Boolean[n];
        jobTypes = new String[n];
        queues = new String[n];
        exchanges = new String[n];
        routingKeys = new String[n];
        retryDelays = new String[n];
        timeouts = new Integer[n];
        policies = new String[n];
        for (int i = 0; i < n; i++) {
            DeliveryTemplate route = all.get(i);
            boolean isPublish = route.kind() == RouteKind.PUBLISH;
            publish[i] = isPublish;
            jobTypes[i] = route.jobType();
            queues[i] = route.queue();
            exchanges[i] = isPublish ? route.exchange() : null;
            routingKeys[i] = isPublish ? route.routingKey() : null;
            retryDelays[i] =
                    route.retryDelaysSeconds().stream().map(String::valueOf).collect(Collectors.joining(",", "{", "}"));
            timeouts[i] = route.deliveryTimeoutSeconds();
            policies[i] = route.orderingPolicy();
        }
    }

    /** A new, empty list of pairs for a batch of about {@code events} events. */
    Pairs pairs(int events) {
        return new Pairs(events);
    }

    /** The (delivery id, event id, route) pairs of one routing batch. */
    final class Pairs {
        private final List<UUID> deliveryIds;
        private final List<UUID> eventIds;
        private final List<Integer> routeNumbers;

        private Pairs(int events) {
            deliveryIds = new ArrayList<>(events);
            eventIds = new ArrayList<>(events);
            routeNumbers = new ArrayList<>(events);
        }

        void add(UUID deliveryId, UUID eventId, DeliveryTemplate route) {
            Integer number = numbers.get(route);
            if (number == null) {
                throw new IllegalArgumentException("not a route of this relay: " + route);
            }
            deliveryIds.add(deliveryId);
            eventIds.add(eventId);
            routeNumbers.add(number);
        }

        /** The values of {@link Parameters#all}, in its order: this batch's pairs, then the snapshot of the routes. */
        Object[] values() {
            return new Object[] {
                deliveryIds.toArray(UUID[]::new),
                eventIds.toArray(UUID[]::new),
                routeNumbers.toArray(Integer[]::new),
                publish,
                jobTypes,
                queues,
                exchanges,
                routingKeys,
                retryDelays,
                timeouts,
                policies
            };
        }
    }

    /** The parameters that carry the pairs and the snapshot into T1's statement, each bound once. */
    static final class Parameters {
        private final Param<UUID[]> deliveryIds = DSL.param(DELIVERY_IDS.getName(), SQLDataType.UUID.array());
        private final Param<UUID[]> eventIds = DSL.param(EVENT_IDS.getName(), SQLDataType.UUID.array());
        private final Param<Integer[]> routeNumbers = DSL.param(ROUTE_NUMBERS.getName(), SQLDataType.INTEGER.array());
        private final Param<Boolean[]> publish = DSL.param(PUBLISH.getName(), SQLDataType.BOOLEAN.array());
        private final Param<String[]> jobTypes = DSL.param(JOB_TYPES.getName(), SQLDataType.VARCHAR.array());
        private final Param<String[]> queues = DSL.param(QUEUES.getName(), SQLDataType.VARCHAR.array());
        private final Param<String[]> exchanges = DSL.param(EXCHANGES.getName(), SQLDataType.VARCHAR.array());
        private final Param<String[]> routingKeys = DSL.param(ROUTING_KEYS.getName(), SQLDataType.VARCHAR.array());
        private final Param<String[]> retryDelays = DSL.param(RETRY_DELAYS.getName(), SQLDataType.VARCHAR.array());
        private final Param<Integer[]> timeouts = DSL.param(TIMEOUTS.getName(), SQLDataType.INTEGER.array());
        private final Param<String[]> policies = DSL.param(POLICIES.getName(), SQLDataType.VARCHAR.array());

        /** In the order of {@link Pairs#values}. */
        List<Param<?>> all() {
            return List.of(
                    deliveryIds,
                    eventIds,
                    routeNumbers,
                    publish,
                    jobTypes,
                    queues,
                    exchanges,
                    routingKeys,
                    retryDelays,
                    timeouts,
                    policies);
        }

        /** The CTE {@code pairs}: one row holding every array. */
        CommonTableExpression<?> table() {
            return PAIRS.fields(
                            DELIVERY_IDS.getName(),
                            EVENT_IDS.getName(),
                            ROUTE_NUMBERS.getName(),
                            PUBLISH.getName(),
                            JOB_TYPES.getName(),
                            QUEUES.getName(),
                            EXCHANGES.getName(),
                            ROUTING_KEYS.getName(),
                            RETRY_DELAYS.getName(),
                            TIMEOUTS.getName(),
                            POLICIES.getName())
                    .as(DSL.select(
                            deliveryIds,
                            eventIds,
                            routeNumbers,
                            publish,
                            jobTypes,
                            queues,
                            exchanges,
                            routingKeys,
                            retryDelays,
                            timeouts,
                            policies));
        }
    }

    /**
     * The rows of {@link #COLUMNS}: one pending delivery per pair of the CTE {@code pairs} whose event
     * is in the CTE {@code locked} (its id, ordering key and position). A delivery of an ordered route
     * gets the event's key, its position and the route's policy, when the event has a position.
     */
    static Select<?> deliveries(
            Field<OffsetDateTime> at,
            org.jooq.Table<?> locked,
            Field<UUID> lockedId,
            Field<String> lockedKey,
            Field<Long> lockedPosition) {
        Field<String> policy = DSL.arrayGet(POLICIES, ROUTE);
        org.jooq.Condition ordered = policy.isNotNull().and(lockedPosition.isNotNull());
        return DSL.select(
                        DSL.arrayGet(DELIVERY_IDS, N),
                        DSL.arrayGet(EVENT_IDS, N),
                        DSL.when(DSL.arrayGet(PUBLISH, ROUTE), DSL.inline(OutboxRouteKind.publish))
                                .otherwise(DSL.inline(OutboxRouteKind.job)),
                        DSL.arrayGet(JOB_TYPES, ROUTE),
                        DSL.arrayGet(QUEUES, ROUTE),
                        DSL.arrayGet(EXCHANGES, ROUTE),
                        DSL.arrayGet(ROUTING_KEYS, ROUTE),
                        DSL.arrayGet(RETRY_DELAYS, ROUTE).cast(SQLDataType.INTEGER.array()),
                        DSL.arrayGet(TIMEOUTS, ROUTE),
                        DSL.inline(OutboxDeliveryStatus.pending),
                        DSL.inline(0),
                        at,
                        at,
                        at,
                        DSL.when(ordered, lockedKey),
                        DSL.when(ordered, lockedPosition),
                        DSL.when(ordered, policy))
                .from(
                        DSL.table(PAIRS),
                        DSL.generateSeries(DSL.inline(1), DSL.cardinality(DELIVERY_IDS))
                                .as("s", "n"),
                        locked)
                .where(DSL.arrayGet(EVENT_IDS, N).eq(lockedId));
    }

    private static <T> Field<T> column(String name, DataType<T> type) {
        return DSL.field(DSL.name(PAIRS.last(), name), type);
    }
}
