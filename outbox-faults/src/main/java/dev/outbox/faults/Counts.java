package dev.outbox.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The counts of a fault run, read from the database after the drain, and the attribution of every
 * duplicate handler call to a fault. Plain SQL over the outbox's and the suite's tables: this is a
 * measuring instrument, not the outbox's runtime code.
 */
final class Counts {

    /** How long after an outage its consequences (reconnects, confirm timeouts) still count as its doing. */
    private static final long OUTAGE_AFTERMATH_MILLIS = 30_000;

    private final DataSource dataSource;
    private final String s;

    Counts(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.s = schema + ".";
    }

    long unrouted() {
        return count("SELECT count(*) FROM " + s + "outbox_events WHERE routed_at IS NULL");
    }

    long open() {
        return count("SELECT count(*) FROM " + s + "outbox_deliveries WHERE status IN ('pending', 'dispatched')");
    }

    /**
     * Open deliveries (pending, dispatched) except those waiting behind a blocked head of their
     * ordered route and key: 0 when the run has settled. On unordered routes, {@link #open()}.
     */
    long openNotBlocked() {
        return count("SELECT count(*) FROM " + s
                + "outbox_deliveries p WHERE p.status IN ('pending', 'dispatched') AND NOT " + behindBlockingHead("p"));
    }

    /** SQL: the delivery {@code p} has a blocking head (failed for good, not skipped) ahead of it in its ordered route and key. */
    String behindBlockingHead(String p) {
        return "EXISTS (SELECT 1 FROM " + s + "outbox_deliveries h WHERE h.job_type = " + p
                + ".job_type AND h.queue_name = " + p
                + ".queue_name AND h.ordering_key = " + p + ".ordering_key AND h.ordering_position < " + p
                + ".ordering_position"
                + " AND h.status = 'failed' AND h.ordering_policy = 'block' AND h.skipped_at IS NULL)";
    }

    long dispatched() {
        return count("SELECT count(*) FROM " + s + "outbox_deliveries WHERE status = 'dispatched'");
    }

    long completed() {
        return count("SELECT count(*) FROM " + s + "outbox_deliveries WHERE status = 'completed'");
    }

    long failed() {
        return count("SELECT count(*) FROM " + s + "outbox_deliveries WHERE status = 'failed'");
    }

    /** Deliveries that ended failed without any call of their handler, in any attempt. */
    long failedWithoutCall() {
        return count("SELECT count(*) FROM " + s
                + "outbox_deliveries d WHERE d.status = 'failed' AND NOT EXISTS (SELECT 1 FROM " + s
                + Instrumentation.CALLS + " c WHERE c.delivery_id = d.id)");
    }

    long events() {
        return count("SELECT count(*) FROM " + s + "outbox_events");
    }

    long missing(Set<UUID> acknowledged) {
        Set<UUID> stored = new java.util.HashSet<>();
        query("SELECT id FROM " + s + "outbox_events", rs -> stored.add(rs.getObject(1, UUID.class)));
        return acknowledged.stream().filter(id -> !stored.contains(id)).count();
    }

    /** Fills the database's part of the report. */
    Report report(
            Scenario scenario,
            double runSeconds,
            double faultPeriodSeconds,
            Producers producers,
            Supervisor supervisor,
            List<Outage> outages,
            long peakUnrouted,
            long peakDispatched,
            boolean drained,
            double drainSeconds,
            List<Supervisor.Stop> stops,
            Load load,
            OrderedKeys.@Nullable Result ordering) {
        Map<String, Long> byStatus = new TreeMap<>();
        query(
                "SELECT status::text || coalesce(' ' || failure_reason, ''), count(*) FROM " + s
                        + "outbox_deliveries GROUP BY 1",
                rs -> byStatus.put(rs.getString(1), rs.getLong(2)));
        long lost = count("SELECT count(*) FROM " + s + "outbox_events e WHERE NOT EXISTS (SELECT 1 FROM " + s
                + "outbox_deliveries d WHERE d.event_id = e.id AND (d.status = 'completed' OR (e.event_type = 'fault.doomed'"
                + " AND d.status = 'failed') OR (d.status = 'failed' AND d.skipped_at IS NOT NULL)))");
        long doomed = count("SELECT count(*) FROM " + s + "outbox_events WHERE event_type = 'fault.doomed'");
        long doomedFailed = count("SELECT count(*) FROM " + s + "outbox_events e JOIN " + s + "outbox_deliveries d"
                + " ON d.event_id = e.id WHERE e.event_type = 'fault.doomed' AND d.status = 'failed'");
        long completedTwice = count("SELECT count(*) FROM (SELECT delivery_id FROM " + s + Instrumentation.TRANSITIONS
                + " WHERE new_status = 'completed' GROUP BY delivery_id HAVING count(*) > 1) x");
        long completedWithoutCall =
                count("SELECT count(*) FROM " + s + "outbox_deliveries d WHERE d.status = 'completed'"
                        + " AND NOT EXISTS (SELECT 1 FROM " + s + Instrumentation.CALLS
                        + " c WHERE c.delivery_id = d.id AND c.dispatch_id = d.dispatch_id AND c.outcome = 'ok')");
        long calls = count("SELECT count(*) FROM " + s + Instrumentation.CALLS);
        Map<Integer, Long> perDispatch = histogram("dispatch_id");
        Map<Integer, Long> perDelivery = histogram("delivery_id");
        Map<String, Long> causes = new TreeMap<>();
        List<String> unexplainedSamples = new ArrayList<>();
        long duplicates = attributeDuplicates(
                supervisor.kills(), supervisor.exits(), outages, causes, unexplainedSamples, supervisor.logsByPid());
        long unexplained = causes.entrySet().stream()
                .filter(e -> e.getKey().startsWith(UNEXPLAINED))
                .mapToLong(Map.Entry::getValue)
                .sum();
        Map<String, Long> exits = new TreeMap<>();
        long relayExits = 0;
        long workerExits = 0;
        for (Supervisor.Exit e : supervisor.exits()) {
            exits.merge(
                    e.kind().name().toLowerCase(java.util.Locale.ROOT) + " exit " + e.exitCode() + ": "
                            + e.lastLogLine(),
                    1L,
                    Long::sum);
            if (e.kind() == Supervisor.Kind.RELAY) {
                relayExits++;
            } else {
                workerExits++;
            }
        }
        List<Supervisor.Kill> kills = supervisor.kills();
        long relayKills =
                kills.stream().filter(k -> k.kind() == Supervisor.Kind.RELAY).count();
        return new Report(
                scenario,
                runSeconds,
                faultPeriodSeconds,
                producers.acknowledged().size(),
                producers.errors(),
                producers.ambiguousCommits(),
                events(),
                missing(producers.acknowledged()),
                unrouted(),
                count("SELECT count(*) FROM " + s + "outbox_deliveries"),
                byStatus,
                lost,
                doomed,
                doomedFailed,
                completedTwice,
                completedWithoutCall,
                calls,
                perDispatch,
                perDelivery,
                duplicates,
                causes,
                unexplained,
                relayKills,
                kills.size() - relayKills,
                outages,
                relayExits,
                workerExits,
                exits,
                peakUnrouted,
                peakDispatched,
                drained,
                drainSeconds,
                stops,
                unexplainedSamples,
                load,
                ordering);
    }

    static final String UNEXPLAINED = "unexplained";

    record Call(UUID delivery, UUID dispatch, long pid, String outcome, Instant at) {}

    /** How many unexplained duplicates the report lists one by one, with the logs of the processes that made the calls. */
    static final int UNEXPLAINED_SAMPLES = 30;

    private record Transition(
            UUID dispatch,
            String oldStatus,
            String newStatus,
            Instant at,
            @Nullable Instant oldTimeoutAt) {}

    /**
     * A handler call is a duplicate when an earlier call of its delivery succeeded, or an earlier call
     * had the same dispatch. Its cause is the fault between the earlier call and it (a kill of the
     * worker that made the earlier call first, then a PostgreSQL restart, a broker outage, a relay
     * kill), and the path: the same message delivered again, or the dispatch timed out or sent back
     * and dispatched again.
     */
    private long attributeDuplicates(
            List<Supervisor.Kill> kills,
            List<Supervisor.Exit> exits,
            List<Outage> outages,
            Map<String, Long> causes,
            List<String> unexplainedSamples,
            Map<Long, String> logsByPid) {
        Map<UUID, List<Call>> calls = new LinkedHashMap<>();
        query(
                "SELECT delivery_id, dispatch_id, pid, outcome, called_at FROM " + s + Instrumentation.CALLS
                        + " WHERE delivery_id IN (SELECT delivery_id FROM " + s + Instrumentation.CALLS
                        + " GROUP BY delivery_id HAVING count(*) > 1) ORDER BY delivery_id, called_at, id",
                rs -> calls.computeIfAbsent(rs.getObject(1, UUID.class), k -> new ArrayList<>())
                        .add(new Call(
                                rs.getObject(1, UUID.class),
                                rs.getObject(2, UUID.class),
                                rs.getLong(3),
                                rs.getString(4),
                                instant(rs, 5))));
        Map<UUID, List<Transition>> transitions = new LinkedHashMap<>();
        query(
                "SELECT delivery_id, dispatch_id, old_status, new_status, at, old_timeout_at FROM " + s
                        + Instrumentation.TRANSITIONS
                        + " WHERE delivery_id IN (SELECT delivery_id FROM " + s + Instrumentation.CALLS
                        + " GROUP BY delivery_id HAVING count(*) > 1) ORDER BY id",
                rs -> transitions
                        .computeIfAbsent(rs.getObject(1, UUID.class), k -> new ArrayList<>())
                        .add(new Transition(
                                rs.getObject(2, UUID.class),
                                rs.getString(3),
                                rs.getString(4),
                                instant(rs, 5),
                                instantOrNull(rs, 6))));
        long duplicates = 0;
        for (List<Call> list : calls.values()) {
            for (int i = 1; i < list.size(); i++) {
                Call call = list.get(i);
                @Nullable Call earlier = null;
                for (int j = i - 1; j >= 0 && earlier == null; j--) {
                    Call c = list.get(j);
                    if (c.outcome.equals("ok") || c.dispatch.equals(call.dispatch)) {
                        earlier = c;
                    }
                }
                if (earlier == null) {
                    continue; // a retry after a retryable failure: expected
                }
                duplicates++;
                List<Transition> history = transitions.getOrDefault(call.delivery, List.of());
                String fault = fault(earlier, call, kills, exits, outages);
                if (fault.startsWith(UNEXPLAINED) && lateForItsTimeout(earlier, history)) {
                    fault = "no fault: the call began within " + LATE_SECONDS
                            + " s of its delivery timeout (a queue wait as long as"
                            + " the timeout), the timeout came before the completion";
                }
                String cause = fault + " → " + path(earlier, call, history);
                causes.merge(cause, 1L, Long::sum);
                if (fault.startsWith(UNEXPLAINED) && unexplainedSamples.size() < UNEXPLAINED_SAMPLES) {
                    unexplainedSamples.add("delivery " + call.delivery + " dispatch " + call.dispatch
                            + ": earlier call " + earlier.dispatch
                            + " at " + earlier.at + " by pid " + earlier.pid + " ("
                            + logsByPid.getOrDefault(earlier.pid, "?") + "), this call at "
                            + call.at + " by pid " + call.pid + " (" + logsByPid.getOrDefault(call.pid, "?") + ")");
                }
            }
        }
        return duplicates;
    }

    static String fault(
            Call earlier, Call call, List<Supervisor.Kill> kills, List<Supervisor.Exit> exits, List<Outage> outages) {
        for (Supervisor.Kill k : kills) {
            // the process died somewhere between SIGKILL and its reaping: after its own call (which PostgreSQL may
            // have timed after the signal), before the broker handed its message on
            if (k.pid() == earlier.pid
                    && !k.at().isAfter(call.at)
                    && !k.reaped().isBefore(earlier.at)) {
                return "kill -9 of the worker that ran the earlier call";
            }
        }
        for (Supervisor.Exit x : exits) {
            // the supervisor notices an exit up to 100 ms late: the broker may have redelivered by then
            if (x.pid() == earlier.pid && within(x.at(), earlier.at, call.at.plus(EXIT_NOTICED_WITHIN))) {
                return "unasked exit of the worker that ran the earlier call";
            }
        }
        for (Outage.Kind kind : List.of(Outage.Kind.PG_RESTART, Outage.Kind.BROKER_STOP)) {
            for (Outage o : outages) {
                if (o.kind() == kind
                        && !o.start().isAfter(call.at)
                        && !o.end().plusMillis(OUTAGE_AFTERMATH_MILLIS).isBefore(earlier.at)) {
                    return kind.label + " between the calls";
                }
            }
        }
        for (Supervisor.Kill k : kills) {
            if (k.kind() == Supervisor.Kind.RELAY && within(k.at(), earlier.at, call.at)) {
                return "kill -9 of a relay between the calls";
            }
        }
        return UNEXPLAINED + " (no fault between the calls)";
    }

    /** How late the supervisor may notice that a process exited. */
    static final java.time.Duration EXIT_NOTICED_WITHIN = java.time.Duration.ofSeconds(1);

    /** How close to its delivery timeout a job may begin before a timeout winning the race with its completion counts as explained. */
    static final int LATE_SECONDS = 5;

    /** Whether the earlier call's dispatch timed out (T4) and the call began less than {@link #LATE_SECONDS} before that timeout. */
    private static boolean lateForItsTimeout(Call earlier, List<Transition> transitions) {
        for (Transition t : transitions) {
            if (earlier.dispatch.equals(t.dispatch)
                    && "dispatched".equals(t.oldStatus)
                    && !"completed".equals(t.newStatus)) {
                return t.oldTimeoutAt != null
                        && !t.at.isBefore(t.oldTimeoutAt)
                        && !earlier.at.isBefore(t.oldTimeoutAt.minusSeconds(LATE_SECONDS));
            }
        }
        return false;
    }

    private static String path(Call earlier, Call call, List<Transition> transitions) {
        if (earlier.dispatch.equals(call.dispatch)) {
            return "the same dispatch delivered again (not acknowledged before the fault)";
        }
        for (Transition t : transitions) {
            if (earlier.dispatch.equals(t.dispatch)
                    && "dispatched".equals(t.oldStatus)
                    && !"completed".equals(t.newStatus)) {
                return t.oldTimeoutAt != null && !t.at.isBefore(t.oldTimeoutAt)
                        ? "the dispatch timed out (T4) and was dispatched again"
                        : "the dispatch went back to pending before its timeout and was dispatched again";
            }
        }
        return "dispatched again";
    }

    private static boolean within(Instant t, Instant from, Instant to) {
        return !t.isBefore(from) && !t.isAfter(to);
    }

    private Map<Integer, Long> histogram(String column) {
        Map<Integer, Long> h = new TreeMap<>();
        query(
                "SELECT n, count(*) FROM (SELECT count(*) AS n FROM " + s + Instrumentation.CALLS + " GROUP BY "
                        + column + ") x GROUP BY n",
                rs -> h.put(rs.getInt(1), rs.getLong(2)));
        return h;
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant();
    }

    private static @Nullable Instant instantOrNull(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    @FunctionalInterface
    private interface Row {
        void accept(ResultSet rs) throws SQLException;
    }

    long count(String sql) {
        long[] n = new long[1];
        query(sql, rs -> n[0] = rs.getLong(1));
        return n[0];
    }

    private void query(String sql, Row row) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement st = c.prepareStatement(sql);
                ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
                row.accept(rs);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("count failed (SQLState " + e.getSQLState() + ")", e);
        }
    }
}
