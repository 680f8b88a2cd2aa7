package dev.outbox.faults;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a fault run ended with, read from the database after the drain (counts) and from the
 * supervisor (kills, exits, SIGTERM).
 *
 * @param lostEvents committed events without a completed delivery after the drain (an event whose
 *     handler always fails counts as lost unless its delivery ended {@code failed}; so does a head of an
 *     ordered route the operator skipped)
 * @param completedTwice deliveries that entered {@code completed} more than once (the trigger's log)
 * @param completedWithoutCall completed deliveries without a successful handler call of their dispatch
 * @param duplicateCalls handler calls after a call that should have been the last one (a successful
 *     call, or an earlier call of the same dispatch)
 * @param duplicateCauses the duplicates by cause: the fault in their window and the path they took
 * @param unexpectedExits processes that exited unasked, by kind, exit code and last log line
 * @param unexplainedSamples the first unexplained duplicates one by one: ids, times, pids and the log files of both calls
 * @param load queue depth, goodput after the last fault, log volume, failures without a handler call
 * @param ordering on ordered routes, the order per key and the unblocking ({@link OrderedKeys}); null on unordered ones
 */
public record Report(
        Scenario scenario,
        double runSeconds,
        double faultPeriodSeconds,
        long eventsAcknowledged,
        long producerErrors,
        long ambiguousCommits,
        long eventsCommitted,
        long acknowledgedMissing,
        long unroutedEvents,
        long deliveries,
        Map<String, Long> deliveriesByStatus,
        long lostEvents,
        long doomedEvents,
        long doomedFailed,
        long completedTwice,
        long completedWithoutCall,
        long handlerCalls,
        Map<Integer, Long> callsPerDispatch,
        Map<Integer, Long> callsPerDelivery,
        long duplicateCalls,
        Map<String, Long> duplicateCauses,
        long unexplainedDuplicates,
        long relayKills,
        long workerKills,
        List<Outage> outages,
        long unexpectedRelayExits,
        long unexpectedWorkerExits,
        Map<String, Long> unexpectedExits,
        long peakUnrouted,
        long peakDispatched,
        boolean drained,
        double drainSeconds,
        List<Supervisor.Stop> stops,
        List<String> unexplainedSamples,
        Load load,
        OrderedKeys.@Nullable Result ordering) {

    public Report {
        unexplainedSamples = List.copyOf(unexplainedSamples);
        deliveriesByStatus = Map.copyOf(deliveriesByStatus);
        callsPerDispatch = Map.copyOf(callsPerDispatch);
        callsPerDelivery = Map.copyOf(callsPerDelivery);
        duplicateCauses = Map.copyOf(duplicateCauses);
        outages = List.copyOf(outages);
        unexpectedExits = Map.copyOf(unexpectedExits);
        stops = List.copyOf(stops);
    }

    /** Processes still running 20 s after the final SIGTERM (then killed). */
    public long notStoppedOnSigterm() {
        return stops.stream().filter(s -> !s.stopped()).count();
    }

    /**
     * The promises that must hold whatever the faults: nothing committed is lost, nothing is completed
     * twice, every duplicate handler call has a fault behind it, the run drained, every process stopped
     * on SIGTERM; on ordered routes, the order per key ({@link OrderedKeys.Result#broken()}). With {@code strictRelayExits}, a relay exiting unasked breaks a promise too (issue 12,
     * item 1: a relay must ride out a database outage); with {@code strictWorkerExits} a worker likewise
     * (the worker waits for the database and the broker at start-up and rides out their outages).
     */
    public List<String> brokenPromises(boolean strictRelayExits, boolean strictWorkerExits) {
        List<String> broken = new java.util.ArrayList<>();
        if (!drained) {
            broken.add("not drained within " + scenario.drainTimeoutSeconds() + " s");
        }
        if (lostEvents > 0 || acknowledgedMissing > 0) {
            broken.add(lostEvents + " event(s) lost, " + acknowledgedMissing + " seen committed but missing");
        }
        if (completedTwice > 0 || completedWithoutCall > 0) {
            broken.add(completedTwice + " delivery(ies) completed twice, " + completedWithoutCall
                    + " completed without a handler call");
        }
        if (unexplainedDuplicates > 0) {
            broken.add(unexplainedDuplicates + " duplicate handler call(s) without a fault behind them");
        }
        if (notStoppedOnSigterm() > 0) {
            broken.add(notStoppedOnSigterm() + " process(es) still running " + FaultSuite.SIGTERM_WAIT.toSeconds()
                    + " s after SIGTERM");
        }
        if (strictRelayExits && unexpectedRelayExits > 0) {
            broken.add(unexpectedRelayExits + " relay(s) exited unasked");
        }
        if (strictWorkerExits && unexpectedWorkerExits > 0) {
            broken.add(unexpectedWorkerExits + " worker(s) exited unasked");
        }
        if (ordering != null) {
            broken.addAll(ordering.broken());
        }
        return broken;
    }

    /** The counts as a Markdown table, for docs/fault-tolerance.md. */
    public String toMarkdown() {
        StringBuilder b = new StringBuilder();
        Scenario s = scenario;
        if (s.overloaded()) {
            b.append(String.format(
                    Locale.ROOT,
                    "Overload: handlers take %d ms each during the faults, then as long as they need; "
                            + "%d CPU hog(s) beside the run; %d s of recovery at the offered rate of %.0f events/s; "
                            + "relays bound each job queue to %,d ready messages, dispatch batch %d%n%n",
                    s.slowHandlerMillis(),
                    s.cpuHogs(),
                    s.recoverySeconds(),
                    s.offeredPerSecond(),
                    s.maxQueueDepth(),
                    s.dispatchBatchSize()));
        }
        if (s.orderedRoutes()) {
            b.append(String.format(
                    Locale.ROOT,
                    "Ordered routes (policy block) over %d keys; %.1f%% of events fail on their first attempt, "
                            + "%.1f%% for good until the suite skips them or heals and requeues them%n%n",
                    s.keys(),
                    s.flakyShare() * 100,
                    s.terminalShare() * 100));
        }
        b.append(String.format(
                Locale.ROOT,
                "%,d events, %d producers, %d relays, %d workers; %d s of faults: %s, "
                        + "%d broker stop(s) of %d s, %d immediate PostgreSQL restart(s); %.0f%% of events fail on every attempt "
                        + "(retries %s), others retry %s; delivery timeout %d s; faults lasted %.0f s (%s); run %.0f s%n%n",
                s.events(),
                s.producers(),
                s.relays(),
                s.workers(),
                s.faultSeconds(),
                s.killEverySeconds() > 0 ? "kill -9 every ~" + s.killEverySeconds() + " s" : "no kills",
                s.brokerStops(),
                s.brokerStopSeconds(),
                s.pgRestarts(),
                s.failShare() * 100,
                s.doomedRetryDelays(),
                s.retryDelays(),
                s.deliveryTimeoutSeconds(),
                faultPeriodSeconds,
                s.recoverySeconds() > 0 ? "then the recovery" : "until the producers were done",
                runSeconds));
        b.append("| count | value |\n|---|---|\n");
        row(b, "events the producers saw committed", eventsAcknowledged);
        row(b, "producer errors (each retried with the same event id)", producerErrors);
        row(b, "ambiguous commits (an error seen, the event committed nevertheless)", ambiguousCommits);
        row(b, "events committed (database)", eventsCommitted);
        row(b, "events seen committed but missing", acknowledgedMissing);
        row(b, "events unrouted after the drain", unroutedEvents);
        row(b, "deliveries", deliveries);
        deliveriesByStatus.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> row(b, "deliveries " + e.getKey(), e.getValue()));
        row(
                b,
                "**lost events** (committed, no completed delivery after the drain; a planned failure that ended failed is not lost)",
                lostEvents);
        row(
                b,
                "events failing on purpose / their deliveries ended failed (retries_exhausted, or timeout when a timeout took an attempt)",
                doomedEvents + " / " + doomedFailed);
        row(b, "**deliveries completed twice** (trigger log)", completedTwice);
        row(b, "completed deliveries without a successful handler call of their dispatch", completedWithoutCall);
        row(b, "handler calls", handlerCalls);
        row(b, "handler calls per dispatch (calls: dispatches)", histogram(callsPerDispatch));
        row(b, "handler calls per delivery (calls: deliveries)", histogram(callsPerDelivery));
        row(b, "**duplicate handler calls**", duplicateCalls);
        duplicateCauses.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> row(b, "&nbsp;&nbsp;cause: " + e.getKey(), e.getValue()));
        row(b, "**unexplained duplicates**", unexplainedDuplicates);
        row(b, "kills -9 (relay / worker)", relayKills + " / " + workerKills);
        for (Outage o : outages) {
            row(
                    b,
                    o.kind().label + " (from its first command to the server answering again)",
                    String.format(Locale.ROOT, "%.1f s", o.seconds()));
        }
        row(
                b,
                "**unexpected exits** (relay / worker), restarted by the suite",
                unexpectedRelayExits + " / " + unexpectedWorkerExits);
        unexpectedExits.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> row(b, "&nbsp;&nbsp;" + e.getKey().replace("|", "\\|"), e.getValue()));
        if (ordering != null) {
            OrderedKeys.Result o = ordering;
            row(b, "ordered routes: keys", o.keys());
            row(b, "**handler calls that began after a later delivery of their key**", o.outOfOrderStarts());
            row(b, "**deliveries dispatched while the one ahead in their key was open**", o.overlapping());
            row(b, "**deliveries that ran behind a blocked head of their key**", o.overtaken());
            row(
                    b,
                    "blocked heads met / skipped / healed and requeued, in unblocking rounds",
                    String.format(
                            Locale.ROOT,
                            "%,d / %,d / %,d in %d",
                            o.blockedHeads(),
                            o.skipped(),
                            o.requeued(),
                            o.rounds()));
            row(b, "**keys still blocked at the end**", o.stillBlocked());
        }
        row(b, "peak unrouted events (sampled each second)", peakUnrouted);
        row(b, "peak dispatched deliveries (sampled each second)", peakDispatched);
        load.rows((name, value) -> row(b, name, value));
        row(
                b,
                "**drained**",
                drained
                        ? String.format(Locale.ROOT, "yes, %.1f s after the faults and producers stopped", drainSeconds)
                        : String.format(Locale.ROOT, "no, open deliveries left after %.0f s", drainSeconds));
        row(b, "**processes not stopped 20 s after SIGTERM**", notStoppedOnSigterm());
        row(
                b,
                "slowest stop after SIGTERM",
                String.format(
                        Locale.ROOT,
                        "%.1f s",
                        stops.stream()
                                .mapToDouble(Supervisor.Stop::seconds)
                                .max()
                                .orElse(0)));
        row(
                b,
                "exit codes after SIGTERM",
                histogram(stops.stream()
                        .collect(java.util.stream.Collectors.groupingBy(
                                Supervisor.Stop::exitCode,
                                java.util.TreeMap::new,
                                java.util.stream.Collectors.counting()))));
        return b.toString();
    }

    private static void row(StringBuilder b, String name, Object value) {
        b.append("| ")
                .append(name)
                .append(" | ")
                .append(value instanceof Long l ? String.format(Locale.ROOT, "%,d", l) : value)
                .append(" |\n");
    }

    private static String histogram(Map<Integer, Long> h) {
        StringBuilder b = new StringBuilder();
        new java.util.TreeMap<>(h)
                .forEach((k, v) -> b.append(b.isEmpty() ? "" : ", ")
                        .append(k)
                        .append(": ")
                        .append(String.format(Locale.ROOT, "%,d", v)));
        return b.isEmpty() ? "none" : b.toString();
    }
}
