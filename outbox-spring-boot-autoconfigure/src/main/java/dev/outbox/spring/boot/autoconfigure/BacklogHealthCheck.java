package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.OutboxStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * {@code backlog}: down when the oldest ready pending delivery has waited longer than
 * {@code outbox.health.backlog-age-threshold}, the sign that no relay dispatches (or cannot keep up).
 * Read from the status of the operator's {@code status} command, each time the health is asked.
 */
final class BacklogHealthCheck implements OutboxHealthCheck {

    static final String THRESHOLD_PROPERTY = "outbox.health.backlog-age-threshold";

    private final DataSource dataSource;
    private final OutboxTables tables;
    private final Duration threshold;
    private final Clock clock;

    /** @throws IllegalArgumentException naming the property when {@code threshold} is not positive */
    BacklogHealthCheck(DataSource dataSource, OutboxTables tables, Duration threshold, Clock clock) {
        if (threshold.isZero() || threshold.isNegative()) {
            throw new IllegalArgumentException(THRESHOLD_PROPERTY + " must be positive, got " + threshold);
        }
        this.dataSource = dataSource;
        this.tables = tables;
        this.threshold = threshold;
        this.clock = clock;
    }

    @Override
    public String name() {
        return "backlog";
    }

    @Override
    public Result check() {
        OutboxStatus status = OutboxStatus.read(dataSource, tables, clock);
        Duration oldest = status.oldestReady().orElse(null);
        Map<String, @Nullable Object> details = new LinkedHashMap<>();
        details.put("oldestReadySeconds", oldest == null ? null : oldest.toMillis() / 1000.0);
        details.put("thresholdSeconds", threshold.toMillis() / 1000.0);
        details.put(
                "pending",
                status.queues().stream().mapToLong(OutboxStatus.Queue::pending).sum());
        details.put(
                "readyPending",
                status.queues().stream()
                        .mapToLong(OutboxStatus.Queue::readyPending)
                        .sum());
        details.put(
                "dispatched",
                status.queues().stream()
                        .mapToLong(OutboxStatus.Queue::dispatched)
                        .sum());
        details.put(
                "failed",
                status.queues().stream().mapToLong(OutboxStatus.Queue::failed).sum());
        details.put("unroutedEvents", status.unroutedEvents());
        details.put("blockedKeys", status.blockedKeyCount());
        return new Result(oldest == null || oldest.compareTo(threshold) <= 0, details);
    }
}
