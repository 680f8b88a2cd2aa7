package dev.outbox.relay;

import dev.outbox.delivery.LogText;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.internal.OutboxTablesCheck;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The current state of an outbox, read without changing anything: deliveries per queue and status,
 * the age of the oldest ready pending delivery, unrouted events, failures by reason and the keys
 * blocked on ordered routes. Holds no payloads and no ids.
 *
 * <pre>{@code
 * System.out.print(OutboxStatus.read(dataSource, OutboxTables.defaults(), Clock.systemUTC()).toTable());
 * }</pre>
 *
 * @param at when it was read
 * @param queues one row per queue, by name
 * @param unroutedEvents events not routed yet (no route, or not reached yet)
 * @param failuresByReason failed deliveries per failure reason, by reason
 * @param blockedKeys the keys blocked on ordered routes (docs/ordering.md), one row per route that has any, by route
 */
public record OutboxStatus(
        Instant at,
        List<Queue> queues,
        long unroutedEvents,
        Map<String, Long> failuresByReason,
        List<BlockedRoute> blockedKeys) {

    public OutboxStatus {
        queues = List.copyOf(queues);
        failuresByReason = Map.copyOf(new TreeMap<>(failuresByReason));
        blockedKeys = List.copyOf(blockedKeys);
    }

    /** A status without blocked keys (as read before ordered routes existed). */
    public OutboxStatus(Instant at, List<Queue> queues, long unroutedEvents, Map<String, Long> failuresByReason) {
        this(at, queues, unroutedEvents, failuresByReason, List.of());
    }

    /**
     * The keys blocked on one ordered route: their heads failed for good under the policy
     * {@code block} and no operator has skipped them (the relay jar's {@code blocked} commands list them).
     *
     * @param route the route's job type (for a publish route, its name)
     * @param queue the route's queue (for a publish route, its exchange)
     * @param keys how many keys are blocked
     * @param oldestKey the key blocked longest
     * @param oldestAge how long {@code oldestKey} has been blocked (since its head failed)
     */
    public record BlockedRoute(String route, String queue, long keys, String oldestKey, Duration oldestAge) {}

    /** The blocked keys over all ordered routes. */
    public long blockedKeyCount() {
        return blockedKeys.stream().mapToLong(BlockedRoute::keys).sum();
    }

    /**
     * Deliveries of one queue (for publish routes, the exchange) by status.
     *
     * @param readyPending pending deliveries whose {@code available_at} has come
     * @param dispatched dispatched deliveries: sent, waiting for a worker or running
     * @param waitingForWorker of the dispatched, those no worker has picked up yet (their messages wait
     *     in the queue, or were lost and will time out unstarted, T4u); the relay holds this many, about,
     *     at most per job queue ({@code OUTBOX_MAX_QUEUE_DEPTH}, {@code OutboxRelay.Builder.maxQueueDepth})
     * @param oldestReady how long the oldest ready pending delivery has been waiting, null when none
     */
    public record Queue(
            String name,
            long pending,
            long readyPending,
            long dispatched,
            long waitingForWorker,
            long completed,
            long failed,
            @Nullable Duration oldestReady) {}

    /**
     * Reads the state of the outbox in {@code tables}.
     *
     * @throws RelayException naming the schema and the tables when they do not exist (the migrations create them)
     */
    public static OutboxStatus read(DataSource dataSource, OutboxTables tables, Clock clock) {
        OutboxTablesCheck.require(dataSource, tables);
        return StatusQueries.read(dataSource, tables, clock);
    }

    /** The oldest ready pending delivery's wait over all queues, when there is one. */
    public Optional<Duration> oldestReady() {
        return queues.stream().map(Queue::oldestReady).filter(d -> d != null).max(Duration::compareTo);
    }

    /**
     * The status as nested maps, lists, strings and numbers, durations in seconds: what the relay jar's
     * {@code status --json} prints and the Spring Boot actuator's {@code outbox} endpoint shows. Keys
     * keep their order; {@code oldestReadySeconds} is null when no delivery is ready.
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at", at.toString());
        m.put(
                "queues",
                queues.stream()
                        .map(q -> {
                            Map<String, Object> row = new LinkedHashMap<>();
                            row.put("name", q.name());
                            row.put("pending", q.pending());
                            row.put("readyPending", q.readyPending());
                            row.put("dispatched", q.dispatched());
                            row.put("waitingForWorker", q.waitingForWorker());
                            row.put("completed", q.completed());
                            row.put("failed", q.failed());
                            row.put("oldestReadySeconds", seconds(q.oldestReady()));
                            return row;
                        })
                        .toList());
        m.put("unroutedEvents", unroutedEvents);
        m.put("failuresByReason", new LinkedHashMap<>(new TreeMap<>(failuresByReason)));
        m.put("oldestReadySeconds", seconds(oldestReady().orElse(null)));
        m.put("blockedKeys", blockedKeyCount());
        m.put(
                "blockedKeysByRoute",
                blockedKeys.stream()
                        .map(b -> {
                            Map<String, Object> row = new LinkedHashMap<>();
                            row.put("route", b.route());
                            row.put("queue", b.queue());
                            row.put("keys", b.keys());
                            row.put("oldestKey", b.oldestKey());
                            row.put("oldestAgeSeconds", seconds(b.oldestAge()));
                            return row;
                        })
                        .toList());
        return m;
    }

    private static @Nullable Double seconds(@Nullable Duration d) {
        return d == null ? null : d.toMillis() / 1000.0;
    }

    /**
     * Plain-text tables for a terminal; empty tables print zeros. Names read from the tables (queues,
     * routes, failure reasons, keys), which another program may have written, print as
     * {@code LogText} does: control characters escaped, so none can move the cursor or forge a line.
     */
    public String toTable() {
        StringBuilder out = new StringBuilder();
        out.append("outbox status at ").append(at).append('\n').append('\n');
        int width = Math.max(
                5,
                queues.stream()
                        .mapToInt(q -> LogText.of(q.name()).length())
                        .max()
                        .orElse(0));
        String format = "%-" + width + "s %10s %10s %12s %10s %10s %10s %10s%n";
        out.append(String.format(
                format, "queue", "pending", "ready", "oldest ready", "dispatched", "in queue", "completed", "failed"));
        long pending = 0;
        long ready = 0;
        long dispatched = 0;
        long waiting = 0;
        long completed = 0;
        long failed = 0;
        for (Queue q : queues) {
            out.append(String.format(
                    format,
                    LogText.of(q.name()),
                    q.pending(),
                    q.readyPending(),
                    age(q.oldestReady()),
                    q.dispatched(),
                    q.waitingForWorker(),
                    q.completed(),
                    q.failed()));
            pending += q.pending();
            ready += q.readyPending();
            dispatched += q.dispatched();
            waiting += q.waitingForWorker();
            completed += q.completed();
            failed += q.failed();
        }
        out.append(String.format(
                format,
                "total",
                pending,
                ready,
                age(oldestReady().orElse(null)),
                dispatched,
                waiting,
                completed,
                failed));
        out.append('\n');
        out.append("unrouted events: ").append(unroutedEvents).append('\n');
        out.append('\n');
        int reasonWidth = Math.max(
                14,
                failuresByReason.keySet().stream()
                        .mapToInt(r -> LogText.of(r).length())
                        .max()
                        .orElse(0));
        String reasonFormat = "%-" + reasonWidth + "s %10s%n";
        out.append(String.format(reasonFormat, "failure reason", "failed"));
        long total = 0;
        for (Map.Entry<String, Long> e : new TreeMap<>(failuresByReason).entrySet()) {
            out.append(String.format(reasonFormat, LogText.of(e.getKey()), e.getValue()));
            total += e.getValue();
        }
        out.append(String.format(reasonFormat, "total", total));
        out.append('\n');
        out.append("blocked keys: ").append(blockedKeyCount()).append('\n');
        if (!blockedKeys.isEmpty()) {
            int routeWidth = Math.max(
                    5,
                    blockedKeys.stream()
                            .mapToInt(b -> LogText.of(b.route()).length())
                            .max()
                            .orElse(0));
            int queueWidth = Math.max(
                    5,
                    blockedKeys.stream()
                            .mapToInt(b -> LogText.of(b.queue()).length())
                            .max()
                            .orElse(0));
            String blockedFormat = "%-" + routeWidth + "s %-" + queueWidth + "s %10s %12s %s%n";
            out.append(String.format(blockedFormat, "route", "queue", "keys", "oldest age", "oldest key"));
            for (BlockedRoute b : blockedKeys) {
                out.append(String.format(
                        blockedFormat,
                        LogText.of(b.route()),
                        LogText.of(b.queue()),
                        b.keys(),
                        age(b.oldestAge()),
                        LogText.of(b.oldestKey())));
            }
        }
        return out.toString();
    }

    private static String age(@Nullable Duration d) {
        return d == null ? "0s" : Math.max(0, d.toSeconds()) + "s";
    }
}
