package dev.outbox.delivery.internal;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.delivery.RouteKind;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.enums.OutboxRouteKind;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jspecify.annotations.Nullable;

/**
 * "A valid delivery row in status X", written once for every module's tests: a fluent builder whose
 * defaults satisfy the schema's CHECK constraints for the chosen status, relative to a given now.
 *
 * <p>Defaults: a job route {@code send-confirmation} to queue {@code emails}, retry delays
 * {@code [60, 120]}, a delivery timeout of 29 s, created an hour before now, available a minute
 * before now. By status: {@code pending} has 0 attempts and no dispatch id; {@code dispatched} has
 * attempt 1, a random dispatch id, {@code dispatched_at} 30 s before now and
 * {@code delivery_timeout_at = dispatched_at + timeout}; {@code completed} and {@code failed}
 * (reason {@code job_failed}) were dispatched likewise and finished 10 s before now. Every column
 * can be set; {@code updated_at} defaults to the latest of the row's other timestamps.
 *
 * <pre>{@code
 * OutboxDeliveriesRecord row = DeliveryRows.delivery(OutboxDeliveryStatus.dispatched, NOW).attempts(2).insert(ctx);
 * }</pre>
 *
 * {@link #insert} takes a context mapped to the tables under test ({@code OutboxDsl.mapped}); it
 * records a routed event for the row first unless {@link #event} named one.
 */
public final class DeliveryRows {

    private final OutboxDeliveryStatus status;
    private final OffsetDateTime now;
    private UUID id = UUID.randomUUID();
    private @Nullable UUID eventId;
    private RouteKind kind = RouteKind.JOB;
    private String jobType = "send-confirmation";
    private String queue = "emails";
    private @Nullable String exchange;
    private @Nullable String routingKey;
    private List<Integer> retryDelays = List.of(60, 120);
    private int timeoutSeconds = 29;
    private @Nullable Integer attempts;
    private @Nullable UUID dispatchId;
    private boolean dispatchIdSet;
    private @Nullable OffsetDateTime availableAt;
    private @Nullable OffsetDateTime dispatchedAt;
    private @Nullable OffsetDateTime deliveryTimeoutAt;
    private @Nullable OffsetDateTime finishedAt;
    private @Nullable OffsetDateTime startedAt;
    private int unstartedTimeouts;
    private @Nullable String failureReason;
    private @Nullable OffsetDateTime createdAt;
    private @Nullable OffsetDateTime updatedAt;
    private @Nullable String orderingKey;
    private @Nullable Long orderingPosition;
    private @Nullable String orderingPolicy;
    private @Nullable OffsetDateTime skippedAt;

    private DeliveryRows(OutboxDeliveryStatus status, OffsetDateTime now) {
        this.status = status;
        this.now = now;
    }

    /** A delivery in {@code status}, its timestamps placed before {@code now}. */
    public static DeliveryRows delivery(OutboxDeliveryStatus status, OffsetDateTime now) {
        return new DeliveryRows(status, now);
    }

    public DeliveryRows id(UUID id) {
        this.id = id;
        return this;
    }

    /** The event of the row (by default a routed {@code order.placed} event that {@link #insert} records). */
    public DeliveryRows event(UUID eventId) {
        this.eventId = eventId;
        return this;
    }

    public DeliveryRows jobType(String jobType) {
        this.jobType = jobType;
        return this;
    }

    public DeliveryRows queue(String queue) {
        this.queue = queue;
        return this;
    }

    /** A publish route to {@code exchange} with {@code routingKey} (the queue stays as set). */
    public DeliveryRows publish(String exchange, String routingKey) {
        this.kind = RouteKind.PUBLISH;
        this.exchange = exchange;
        this.routingKey = routingKey;
        return this;
    }

    public DeliveryRows retryDelays(List<Integer> seconds) {
        this.retryDelays = List.copyOf(seconds);
        return this;
    }

    public DeliveryRows timeoutSeconds(int seconds) {
        this.timeoutSeconds = seconds;
        return this;
    }

    public DeliveryRows attempts(int attempts) {
        this.attempts = attempts;
        return this;
    }

    /** The dispatch id; null for a pending row that was never dispatched. */
    public DeliveryRows dispatchId(@Nullable UUID dispatchId) {
        this.dispatchId = dispatchId;
        this.dispatchIdSet = true;
        return this;
    }

    public DeliveryRows availableAt(OffsetDateTime at) {
        this.availableAt = at;
        return this;
    }

    /** For dispatched, completed and failed rows. */
    public DeliveryRows dispatchedAt(OffsetDateTime at) {
        this.dispatchedAt = at;
        return this;
    }

    /** For dispatched rows (by default {@code dispatched_at} + the timeout). */
    public DeliveryRows deliveryTimeoutAt(OffsetDateTime at) {
        this.deliveryTimeoutAt = at;
        return this;
    }

    /** When a worker picked the row's dispatch up (T2s); for dispatched, completed and failed rows (by default never). */
    public DeliveryRows startedAt(@Nullable OffsetDateTime at) {
        this.startedAt = at;
        return this;
    }

    /** How often the row's dispatches timed out before a worker picked them up (T4u; by default 0). */
    public DeliveryRows unstartedTimeouts(int count) {
        this.unstartedTimeouts = count;
        return this;
    }

    /** {@code completed_at} of a completed row, {@code failed_at} of a failed one. */
    public DeliveryRows finishedAt(OffsetDateTime at) {
        this.finishedAt = at;
        return this;
    }

    /** For failed rows (by default {@code job_failed}). */
    public DeliveryRows failureReason(String reason) {
        this.failureReason = reason;
        return this;
    }

    public DeliveryRows createdAt(OffsetDateTime at) {
        this.createdAt = at;
        return this;
    }

    public DeliveryRows updatedAt(OffsetDateTime at) {
        this.updatedAt = at;
        return this;
    }

    /** A delivery of an ordered route: its event's key and position, and the route's policy ({@code block} or {@code skip}). */
    public DeliveryRows ordering(String key, long position, String policy) {
        this.orderingKey = key;
        this.orderingPosition = position;
        this.orderingPolicy = policy;
        return this;
    }

    /** When an operator skipped this failed head (T9s). */
    public DeliveryRows skippedAt(OffsetDateTime at) {
        this.skippedAt = at;
        return this;
    }

    /** The row as {@link #insert} would write it (every column set, the event id null unless named). */
    public OutboxDeliveriesRecord record() {
        boolean sent = status != OutboxDeliveryStatus.pending;
        OffsetDateTime created = createdAt != null ? createdAt : now.minusHours(1);
        OffsetDateTime dispatched = sent ? (dispatchedAt != null ? dispatchedAt : now.minusSeconds(30)) : null;
        OffsetDateTime finished = status == OutboxDeliveryStatus.completed || status == OutboxDeliveryStatus.failed
                ? (finishedAt != null ? finishedAt : now.minusSeconds(10))
                : null;
        OffsetDateTime timeoutAt = status == OutboxDeliveryStatus.dispatched
                ? (deliveryTimeoutAt != null ? deliveryTimeoutAt : dispatched.plusSeconds(timeoutSeconds))
                : null;
        OffsetDateTime updated =
                updatedAt != null ? updatedAt : finished != null ? finished : dispatched != null ? dispatched : created;
        OutboxDeliveriesRecord r = new OutboxDeliveriesRecord();
        r.setId(id);
        r.setEventId(eventId);
        r.setKind(kind == RouteKind.PUBLISH ? OutboxRouteKind.publish : OutboxRouteKind.job);
        r.setJobType(jobType);
        r.setQueueName(queue);
        r.setExchange(exchange);
        r.setRoutingKey(routingKey);
        r.setRetryDelaysSeconds(retryDelays.toArray(Integer[]::new));
        r.setDeliveryTimeoutSeconds(timeoutSeconds);
        r.setStatus(status);
        r.setAttempts(attempts != null ? attempts : sent ? 1 : 0);
        r.setDispatchId(dispatchIdSet ? dispatchId : sent ? UUID.randomUUID() : null);
        r.setAvailableAt(availableAt != null ? availableAt : now.minusMinutes(1));
        r.setDispatchedAt(dispatched);
        r.setDeliveryTimeoutAt(timeoutAt);
        r.setStartedAt(sent ? startedAt : null);
        r.setUnstartedTimeouts(unstartedTimeouts);
        r.setCompletedAt(status == OutboxDeliveryStatus.completed ? finished : null);
        r.setFailedAt(status == OutboxDeliveryStatus.failed ? finished : null);
        r.setFailureReason(
                status == OutboxDeliveryStatus.failed ? (failureReason != null ? failureReason : "job_failed") : null);
        r.setCreatedAt(created);
        r.setUpdatedAt(skippedAt != null && skippedAt.isAfter(updated) ? skippedAt : updated);
        r.setOrderingKey(orderingKey);
        r.setOrderingPosition(orderingPosition);
        r.setOrderingPolicy(orderingPolicy);
        r.setSkippedAt(skippedAt);
        return r;
    }

    /** Inserts the row (and, unless {@link #event} named one, a routed event for it); returns it as stored. */
    public OutboxDeliveriesRecord insert(DSLContext mapped) {
        OutboxDeliveriesRecord r = record();
        if (r.getEventId() == null) {
            r.setEventId(event(mapped, now.minusHours(1), now.minusHours(1)));
        }
        mapped.insertInto(OUTBOX_DELIVERIES).set(r).execute();
        return mapped.selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(r.getId()))
                .fetchSingle();
    }

    /** Records an {@code order.placed} event with an empty payload, routed at {@code routedAt} (null: unrouted). */
    public static UUID event(DSLContext mapped, OffsetDateTime createdAt, @Nullable OffsetDateTime routedAt) {
        UUID id = UUID.randomUUID();
        mapped.insertInto(OUTBOX_EVENTS)
                .set(OUTBOX_EVENTS.ID, id)
                .set(OUTBOX_EVENTS.EVENT_TYPE, "order.placed")
                .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{}"))
                .set(OUTBOX_EVENTS.CREATED_AT, createdAt)
                .set(OUTBOX_EVENTS.ROUTED_AT, routedAt)
                .execute();
        return id;
    }
}
