package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.admin.ChangeResult;
import dev.outbox.admin.FailedFilter;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.delivery.LogText;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code outbox} endpoint with its write operation, only with {@code outbox.endpoint.write-enabled=true}:
 * {@code POST /actuator/outbox/requeue} requeues failed deliveries as the relay jar's {@code failed requeue}
 * does (T9: back to pending, attempts 0, available now), with its filters as JSON fields:
 *
 * <pre>{@code
 * curl -X POST localhost:8080/actuator/outbox/requeue -H 'Content-Type: application/json' \
 *      -d '{"queue": "emails", "reason": "timeout", "dryRun": true}'
 * }</pre>
 *
 * <p>A filter ({@code ids} and {@code eventIds} as comma-separated UUIDs, {@code queue}, {@code exchange}, {@code jobType},
 * {@code eventType}, {@code reason}) or {@code "all": true} is required, not both; {@code dryRun} counts
 * and changes nothing. The answer is the command's {@code --json} object.
 */
@Endpoint(id = OutboxEndpoint.ID)
public class OutboxWritableEndpoint extends OutboxEndpoint {

    /** The one command: {@code requeue}. */
    public static final String REQUEUE = "requeue";

    public OutboxWritableEndpoint(DataSource dataSource, OutboxAdmin admin) {
        super(dataSource, admin);
    }

    /**
     * Requeues the failed deliveries the filter names. Optional parameters carry Spring's
     * {@code @Nullable}, the one Boot 3.5 reads (Boot 4.0 reads it and JSpecify's).
     *
     * @throws InvalidEndpointRequestException (400) for another command, no filter without {@code all},
     *     a filter with {@code all}, or a bad id or reason
     */
    @WriteOperation
    @SuppressWarnings(
            "deprecation") // org.springframework.lang.Nullable: deprecated in Spring 7, the only one Boot 3.5 reads
    public Map<String, Object> requeue(
            @Selector String command,
            @org.springframework.lang.Nullable @Nullable String ids,
            @org.springframework.lang.Nullable @Nullable String eventIds,
            @org.springframework.lang.Nullable @Nullable String queue,
            @org.springframework.lang.Nullable @Nullable String exchange,
            @org.springframework.lang.Nullable @Nullable String jobType,
            @org.springframework.lang.Nullable @Nullable String eventType,
            @org.springframework.lang.Nullable @Nullable String reason,
            @org.springframework.lang.Nullable @Nullable Boolean all,
            @org.springframework.lang.Nullable @Nullable Boolean dryRun) {
        if (!REQUEUE.equals(command)) {
            throw new InvalidEndpointRequestException(
                    "unknown command '" + LogText.of(command) + "': the outbox endpoint's command is " + REQUEUE,
                    "unknown command");
        }
        FailedFilter filter;
        try {
            filter = FailedFilter.all()
                    .queue(queue)
                    .exchange(exchange)
                    .jobType(jobType)
                    .eventType(eventType)
                    .reason(reason)
                    .deliveryIds(uuids("ids", ids))
                    .eventIds(uuids("eventIds", eventIds));
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(String.valueOf(e.getMessage()), "bad filter");
        }
        boolean every = Boolean.TRUE.equals(all);
        if (filter.isAll() && !every) {
            throw new InvalidEndpointRequestException(
                    "give a filter (ids, queue, reason, ...) or \"all\": true to requeue every failed delivery",
                    "no filter");
        }
        if (!filter.isAll() && every) {
            throw new InvalidEndpointRequestException("\"all\" cannot be combined with a filter", "all with a filter");
        }
        ChangeResult result = admin().requeue(filter, Boolean.TRUE.equals(dryRun));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("command", REQUEUE);
        m.put("dryRun", result.dryRun());
        m.put("deliveries", result.deliveries());
        m.put("events", result.events());
        m.put(
                "skipped",
                result.skipped().stream()
                        .map(s -> Map.of("id", s.id().toString(), "state", s.state()))
                        .toList());
        return m;
    }

    /** The UUIDs of a comma-separated list (Boot reads a web endpoint's JSON body as strings only, no arrays). */
    private static Set<UUID> uuids(String field, @Nullable String values) {
        Set<UUID> ids = new LinkedHashSet<>();
        for (String value : values == null || values.isBlank() ? List.<String>of() : List.of(values.split(","))) {
            try {
                ids.add(UUID.fromString(value.trim()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(field + ": '" + LogText.of(value) + "' is not a UUID", e);
            }
        }
        return ids;
    }
}
