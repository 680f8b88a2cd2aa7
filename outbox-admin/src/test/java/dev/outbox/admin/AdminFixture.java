package dev.outbox.admin;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;

import dev.outbox.api.OutboxDsl;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.enums.OutboxRouteKind;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/** Rows written straight into the outbox tables, valid for their checks, for the admin's tests. */
public final class AdminFixture {

    public final DSLContext mapped;

    public AdminFixture(DataSource dataSource, OutboxTables tables) {
        this.mapped = OutboxDsl.mapped(DSL.using(dataSource, SQLDialect.POSTGRES), tables);
    }

    public UUID event(String type, String payload, Instant createdAt, boolean routed) {
        UUID id = UUID.randomUUID();
        OffsetDateTime at = createdAt.atOffset(ZoneOffset.UTC);
        mapped.insertInto(OUTBOX_EVENTS)
                .set(OUTBOX_EVENTS.ID, id)
                .set(OUTBOX_EVENTS.EVENT_TYPE, type)
                .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf(payload))
                .set(OUTBOX_EVENTS.CREATED_AT, at)
                .set(OUTBOX_EVENTS.ROUTED_AT, routed ? at : null)
                .execute();
        return id;
    }

    /** A delivery of {@code eventId} in {@code status}; {@code at} is its failure, completion or dispatch time. */
    public UUID delivery(
            UUID eventId,
            OutboxDeliveryStatus status,
            String jobType,
            String queue,
            @Nullable String exchange,
            @Nullable String reason,
            Instant at) {
        UUID id = UUID.randomUUID();
        OffsetDateTime t = at.atOffset(ZoneOffset.UTC);
        OffsetDateTime created = t.minusSeconds(60);
        OutboxDeliveriesRecord r = mapped.newRecord(OUTBOX_DELIVERIES);
        r.setId(id);
        r.setEventId(eventId);
        r.setKind(exchange == null ? OutboxRouteKind.job : OutboxRouteKind.publish);
        r.setJobType(jobType);
        r.setQueueName(queue);
        r.setExchange(exchange);
        r.setRoutingKey(exchange == null ? null : "rk");
        r.setRetryDelaysSeconds(new Integer[] {60});
        r.setDeliveryTimeoutSeconds(300);
        r.setStatus(status);
        r.setAttempts(status == OutboxDeliveryStatus.pending ? 0 : 2);
        r.setDispatchId(status == OutboxDeliveryStatus.pending ? null : UUID.randomUUID());
        r.setAvailableAt(created);
        r.setCreatedAt(created);
        r.setUpdatedAt(t);
        switch (status) {
            case pending -> {}
            case dispatched -> {
                r.setDispatchedAt(t);
                r.setDeliveryTimeoutAt(t.plusSeconds(300));
            }
            case completed -> {
                r.setDispatchedAt(t);
                r.setCompletedAt(t);
            }
            case failed -> {
                r.setDispatchedAt(t);
                r.setFailedAt(t);
                r.setFailureReason(reason == null ? "job_failed" : reason);
            }
        }
        r.store();
        return id;
    }

    public UUID failed(String eventType, String jobType, String queue, String reason, Instant failedAt) {
        return delivery(
                event(eventType, "{\"secret\":\"s3cr3t\"}", failedAt.minusSeconds(120), true),
                OutboxDeliveryStatus.failed,
                jobType,
                queue,
                null,
                reason,
                failedAt);
    }

    public @Nullable OutboxDeliveriesRecord row(UUID id) {
        return mapped.selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.ID.eq(id))
                .fetchOne();
    }

    public @Nullable OutboxDeliveryStatus status(UUID id) {
        OutboxDeliveriesRecord r = row(id);
        return r == null ? null : r.getStatus();
    }

    public boolean eventExists(UUID id) {
        return mapped.fetchExists(OUTBOX_EVENTS, OUTBOX_EVENTS.ID.eq(id));
    }

    public int deliveries() {
        return mapped.fetchCount(OUTBOX_DELIVERIES);
    }

    public int events() {
        return mapped.fetchCount(OUTBOX_EVENTS);
    }
}
