package dev.outbox.relay.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.admin.ChangeResult;
import dev.outbox.admin.DeliveryDetails;
import dev.outbox.admin.FailedDelivery;
import dev.outbox.admin.FailedFilter;
import dev.outbox.admin.FailedPage;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.admin.PurgeResult;
import dev.outbox.admin.Retention;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The operator commands of the relay jar: {@code failed list|show|requeue|remove} and {@code purge},
 * over {@link OutboxAdmin}, with the settings of {@code status}. A table for a terminal by default;
 * {@code --json} prints one JSON object per line. Payloads are printed only by {@code failed show
 * --payload}.
 */
final class AdminCommands {

    private static final ObjectMapper JSON = new ObjectMapper();

    private AdminCommands() {}

    /** {@code failed}: the failed deliveries. */
    @Command(
            name = "failed",
            mixinStandardHelpOptions = true,
            description = "List, show, requeue or remove failed deliveries.",
            subcommands = {FailedList.class, FailedShow.class, FailedRequeue.class, FailedRemove.class})
    static final class FailedRun implements Callable<Integer> {

        @ParentCommand
        RelayCommand parent;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "a command is required: failed list, show, requeue or remove");
        }
    }

    /** The filters every {@code failed} command takes. */
    static final class FilterOptions {

        @Option(names = "--queue", paramLabel = "NAME", description = "Only deliveries to this queue.")
        @Nullable
        String queue;

        @Option(names = "--exchange", paramLabel = "NAME", description = "Only deliveries published to this exchange.")
        @Nullable
        String exchange;

        @Option(names = "--job-type", paramLabel = "TYPE", description = "Only deliveries of this job type.")
        @Nullable
        String jobType;

        @Option(names = "--event-type", paramLabel = "TYPE", description = "Only deliveries of events of this type.")
        @Nullable
        String eventType;

        @Option(
                names = "--reason",
                paramLabel = "CODE",
                description = "Only this failure reason (timeout, job_failed, ...).")
        @Nullable
        String reason;

        @Option(
                names = "--failed-before",
                paramLabel = "TIME",
                description =
                        "Only failures before TIME: an instant (2026-03-01T12:00:00Z) or a duration ago (7d, 12h, 30m).")
        @Nullable
        String failedBefore;

        @Option(
                names = "--failed-after",
                paramLabel = "TIME",
                description = "Only failures at or after TIME (as --failed-before).")
        @Nullable
        String failedAfter;

        @Option(names = "--id", paramLabel = "DELIVERY_ID", description = "Only this delivery (repeatable).")
        List<UUID> ids = new ArrayList<>();

        @Option(
                names = "--event-id",
                paramLabel = "EVENT_ID",
                description = "Only deliveries of this event (repeatable).")
        List<UUID> eventIds = new ArrayList<>();

        FailedFilter filter(CommandSpec spec, Instant now) {
            try {
                return FailedFilter.all()
                        .queue(queue)
                        .exchange(exchange)
                        .jobType(jobType)
                        .eventType(eventType)
                        .reason(reason)
                        .failedBefore(
                                failedBefore == null ? null : DurationText.time(failedBefore, "--failed-before", now))
                        .failedAfter(failedAfter == null ? null : DurationText.time(failedAfter, "--failed-after", now))
                        .deliveryIds(new LinkedHashSet<>(ids))
                        .eventIds(new LinkedHashSet<>(eventIds));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), String.valueOf(e.getMessage()));
            }
        }
    }

    /** {@code --json}. */
    static final class Format {

        @Option(names = "--json", description = "One JSON object per line instead of a table.")
        boolean json;
    }

    /** What every {@code failed} command shares: the settings, the admin and the output. */
    abstract static class FailedCommand implements Callable<Integer> {

        @ParentCommand
        FailedRun failed;

        @Spec
        CommandSpec spec;

        @Mixin
        Format format;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        @Override
        public final Integer call() {
            return withAdmin(failed.parent.settings(), out(), this::run);
        }

        abstract int run(OutboxAdmin admin);
    }

    /** {@code failed list}. */
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "Failed deliveries, oldest failure first, a page at a time.")
    static final class FailedList extends FailedCommand {

        @Mixin
        FilterOptions filters;

        @Option(
                names = "--limit",
                paramLabel = "N",
                defaultValue = "50",
                description = "Deliveries per page (1..10000, default ${DEFAULT-VALUE}).")
        int limit;

        @Option(
                names = "--after",
                paramLabel = "CURSOR",
                description = "Start after this cursor (printed after a page, and in each JSON object).")
        @Nullable
        String after;

        @Override
        int run(OutboxAdmin admin) {
            FailedFilter filter = filters.filter(spec, Instant.now());
            FailedPage page;
            try {
                if (limit < 1 || limit > OutboxAdmin.MAX_PAGE) {
                    throw new IllegalArgumentException(
                            "--limit must be a whole number from 1 to " + OutboxAdmin.MAX_PAGE + ", got " + limit);
                }
                page = admin.listFailed(filter, limit, after == null ? null : FailedPage.Cursor.parse(after));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), String.valueOf(e.getMessage()));
            }
            if (format.json) {
                page.deliveries().forEach(d -> json(out(), listed(d)));
                return 0;
            }
            List<List<String>> table = new ArrayList<>();
            table.add(List.of(
                    "DELIVERY",
                    "FAILED AT",
                    "REASON",
                    "ATTEMPTS",
                    "QUEUE / EXCHANGE",
                    "JOB TYPE",
                    "EVENT TYPE",
                    "EVENT"));
            for (FailedDelivery d : page.deliveries()) {
                table.add(List.of(
                        d.id().toString(),
                        d.failedAt().toString(),
                        d.failureReason(),
                        String.valueOf(d.attempts()),
                        d.exchange() == null ? d.queue() : "exchange " + d.exchange(),
                        d.jobType(),
                        d.eventType(),
                        d.eventId().toString()));
            }
            printTable(out(), table);
            out().println(page.deliveries().size() + " failed delivery(ies)"
                    + (page.next() == null ? "" : "; next page: --after " + page.next()));
            return 0;
        }

        private static Map<String, Object> listed(FailedDelivery d) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", d.id().toString());
            m.put("eventId", d.eventId().toString());
            m.put("eventType", d.eventType());
            m.put("jobType", d.jobType());
            m.put("queue", d.queue());
            m.put("exchange", d.exchange());
            m.put("routingKey", d.routingKey());
            m.put("attempts", d.attempts());
            m.put("failureReason", d.failureReason());
            m.put("failedAt", d.failedAt().toString());
            m.put("createdAt", d.createdAt().toString());
            m.put("cursor", d.cursor().toString());
            return m;
        }
    }

    /** {@code failed show ID}. */
    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = "One delivery (in any status) with its event; the payload only with --payload.")
    static final class FailedShow extends FailedCommand {

        @Parameters(paramLabel = "DELIVERY_ID", description = "The delivery to show.")
        UUID id;

        @Option(names = "--payload", description = "Print the event's payload too (it may hold personal data).")
        boolean payload;

        @Override
        int run(OutboxAdmin admin) {
            DeliveryDetails d = admin.show(id, payload).orElse(null);
            if (d == null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "no delivery " + id);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", d.id().toString());
            m.put("status", d.status());
            m.put("kind", d.kind());
            m.put("jobType", d.jobType());
            m.put("queue", d.queue());
            m.put("exchange", d.exchange());
            m.put("routingKey", d.routingKey());
            m.put("attempts", d.attempts());
            m.put("retryDelaysSeconds", d.retryDelaysSeconds());
            m.put("deliveryTimeoutSeconds", d.deliveryTimeoutSeconds());
            m.put("failureReason", d.failureReason());
            m.put("failedAt", text(d.failedAt()));
            m.put("completedAt", text(d.completedAt()));
            m.put("dispatchId", d.dispatchId() == null ? null : d.dispatchId().toString());
            m.put("dispatchedAt", text(d.dispatchedAt()));
            m.put("deliveryTimeoutAt", text(d.deliveryTimeoutAt()));
            m.put("availableAt", d.availableAt().toString());
            m.put("createdAt", d.createdAt().toString());
            m.put("updatedAt", d.updatedAt().toString());
            m.put("eventId", d.eventId().toString());
            m.put("eventType", d.eventType());
            m.put("eventCreatedAt", d.eventCreatedAt().toString());
            m.put("eventRoutedAt", text(d.eventRoutedAt()));
            m.put("orderingKey", d.orderingKey());
            if (format.json) {
                if (payload) {
                    m.put("payload", readTree(d.payload()));
                }
                json(out(), m);
                return 0;
            }
            m.forEach((k, v) -> out().println(
                            String.format(Locale.ROOT, "%-22s %s", k, v == null ? "-" : terminal(String.valueOf(v)))));
            if (payload) {
                out().println("payload");
                out().println(d.payload());
            } else {
                out().println(String.format(Locale.ROOT, "%-22s %s", "payload", "(not shown: --payload prints it)"));
            }
            return 0;
        }
    }

    /** What requeue and remove share: the filters, {@code --all}, {@code --dry-run}. */
    abstract static class FailedChange extends FailedCommand {

        private final String verb;
        private final String past;
        private final boolean removesEvents;

        FailedChange(String verb, String past, boolean removesEvents) {
            this.verb = verb;
            this.past = past;
            this.removesEvents = removesEvents;
        }

        @Mixin
        FilterOptions filters;

        @Option(names = "--all", description = "Every failed delivery (required when no filter is given).")
        boolean all;

        @Option(names = "--dry-run", description = "Count what would change; change nothing.")
        boolean dryRun;

        @Override
        int run(OutboxAdmin admin) {
            FailedFilter filter = filters.filter(spec, Instant.now());
            if (filter.isAll() && !all) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "give a filter (--id, --queue, --reason, ...) or --all to " + verb()
                                + " every failed delivery");
            }
            if (!filter.isAll() && all) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--all cannot be combined with a filter");
            }
            ChangeResult result = change(admin, filter, dryRun);
            if (format.json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("command", verb());
                m.put("dryRun", result.dryRun());
                m.put("deliveries", result.deliveries());
                m.put("events", result.events());
                m.put(
                        "skipped",
                        result.skipped().stream()
                                .map(s -> Map.of("id", s.id().toString(), "state", s.state()))
                                .toList());
                json(out(), m);
                return 0;
            }
            String events = eventsNoun() ? " and " + result.events() + " event(s) left without deliveries" : "";
            if (result.deliveries() == 0 && result.events() == 0) {
                out().println(result.dryRun() ? "dry run: nothing would be " + past() : "nothing " + past());
            } else if (result.dryRun()) {
                out().println("dry run: would " + verb() + " " + result.deliveries() + " failed delivery(ies)" + events
                        + "; nothing changed");
            } else {
                out().println(past() + " " + result.deliveries() + " failed delivery(ies)" + events);
            }
            for (ChangeResult.Skipped s : result.skipped()) {
                out().println(
                                s.state().equals("absent")
                                        ? "left alone: " + s.id() + " does not exist"
                                        : "left alone: " + s.id() + " is " + s.state()
                                                + (s.state().equals("failed")
                                                        ? " but does not match the filter"
                                                        : ", not failed"));
            }
            return 0;
        }

        abstract ChangeResult change(OutboxAdmin admin, FailedFilter filter, boolean dryRun);

        String verb() {
            return verb;
        }

        String past() {
            return past;
        }

        boolean eventsNoun() {
            return removesEvents;
        }
    }

    /** {@code failed requeue}. */
    @Command(
            name = "requeue",
            mixinStandardHelpOptions = true,
            description = "Back to pending with attempts 0, available now (T9); only deliveries still failed change.")
    static final class FailedRequeue extends FailedChange {

        FailedRequeue() {
            super("requeue", "requeued", false);
        }

        @Override
        ChangeResult change(OutboxAdmin admin, FailedFilter filter, boolean dryRun) {
            return admin.requeue(filter, dryRun);
        }
    }

    /** {@code failed remove}. */
    @Command(
            name = "remove",
            mixinStandardHelpOptions = true,
            description = "Delete failed deliveries, and the events left without deliveries.")
    static final class FailedRemove extends FailedChange {

        FailedRemove() {
            super("remove", "removed", true);
        }

        @Override
        ChangeResult change(OutboxAdmin admin, FailedFilter filter, boolean dryRun) {
            return admin.remove(filter, dryRun);
        }
    }

    /** {@code purge}: retention once. */
    @Command(
            name = "purge",
            mixinStandardHelpOptions = true,
            description =
                    "Delete completed and failed deliveries older than the given ages, the events left without deliveries,"
                            + " and (only with --unrouted) unrouted events; in batches, each its own transaction.")
    static final class PurgeRun implements Callable<Integer> {

        @ParentCommand
        RelayCommand parent;

        @Spec
        CommandSpec spec;

        @Mixin
        Format format;

        @Option(
                names = "--completed",
                paramLabel = "AGE",
                description = "Completed deliveries completed longer ago than AGE (7d, 12h, 30m).")
        @Nullable
        String completed;

        @Option(names = "--failed", paramLabel = "AGE", description = "Failed deliveries failed longer ago than AGE.")
        @Nullable
        String failedAge;

        @Option(
                names = "--unrouted",
                paramLabel = "AGE",
                description = "Unrouted events recorded longer ago than AGE (only when given).")
        @Nullable
        String unrouted;

        @Option(
                names = "--batch-size",
                paramLabel = "N",
                defaultValue = "1000",
                description = "Rows per statement (1..100000, default ${DEFAULT-VALUE}).")
        int batchSize;

        @Option(names = "--dry-run", description = "Count what would be deleted; delete nothing.")
        boolean dryRun;

        @Override
        public Integer call() {
            if (completed == null && failedAge == null && unrouted == null) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "give at least one of --completed, --failed, --unrouted");
            }
            Retention retention;
            try {
                retention = new Retention(
                        age(completed, "--completed"),
                        age(failedAge, "--failed"),
                        age(unrouted, "--unrouted"),
                        batchSize);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), String.valueOf(e.getMessage()).replace("batch size", "--batch-size"));
            }
            ServiceSettings s = parent.settings();
            try (HikariDataSource dataSource = RelayCommand.adminDataSource(s)) {
                PurgeResult r = OutboxAdmin.of(dataSource, s.tables(), Clock.systemUTC())
                        .purge(retention, dryRun);
                PrintWriter out = spec.commandLine().getOut();
                if (format.json) {
                    json(out, purged(r));
                } else {
                    out.println((r.dryRun() ? "dry run: would delete " : "deleted ") + r.completed() + " completed and "
                            + r.failed()
                            + " failed delivery(ies), " + r.events() + " event(s) left without deliveries and "
                            + r.unrouted()
                            + " unrouted event(s), " + r.keys() + " ordering key(s)"
                            + (r.dryRun()
                                    ? "; nothing changed"
                                    : " in " + r.batches() + " batch(es), "
                                            + r.took().toMillis() + " ms"));
                }
                out.flush();
                return 0;
            }
        }

        private static @Nullable Duration age(@Nullable String text, String option) {
            return text == null ? null : DurationText.parse(text, option);
        }
    }

    static Map<String, Object> purged(PurgeResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("command", "purge");
        m.put("dryRun", r.dryRun());
        m.put("completed", r.completed());
        m.put("failed", r.failed());
        m.put("events", r.events());
        m.put("unrouted", r.unrouted());
        m.put("keys", r.keys());
        m.put("batches", r.batches());
        m.put("millis", r.took().toMillis());
        return m;
    }

    /**
     * Runs {@code work} with an admin on a pool of its own for {@code s}, closed after; flushes
     * {@code out}. A requeue or skip wakes the relays on {@code OUTBOX_NOTIFY_CHANNEL}.
     */
    static int withAdmin(ServiceSettings s, PrintWriter out, java.util.function.ToIntFunction<OutboxAdmin> work) {
        try (HikariDataSource dataSource = RelayCommand.adminDataSource(s)) {
            int code = work.applyAsInt(OutboxAdmin.of(dataSource, s.tables()).withNotifyChannel(s.notifyChannel()));
            out.flush();
            return code;
        }
    }

    static void json(PrintWriter out, Object value) {
        try {
            out.println(JSON.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    private static Object readTree(@Nullable String payload) {
        if (payload == null) {
            return "";
        }
        try {
            return JSON.readTree(payload);
        } catch (JsonProcessingException e) {
            return payload;
        }
    }

    private static @Nullable String text(@Nullable Instant t) {
        return t == null ? null : t.toString();
    }

    /** A value from the tables, fit for a terminal: control characters as {@code ?}. */
    static String terminal(String value) {
        return ServiceSettings.shown(value, 1_000);
    }

    /** Columns padded to their widest cell, two spaces apart. */
    static void printTable(PrintWriter out, List<List<String>> rows) {
        int[] widths = new int[rows.get(0).size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], terminal(row.get(i)).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                String cell = terminal(row.get(i));
                line.append(cell);
                if (i < row.size() - 1) {
                    line.append(" ".repeat(widths[i] - cell.length() + 2));
                }
            }
            out.println(line);
        }
    }
}
