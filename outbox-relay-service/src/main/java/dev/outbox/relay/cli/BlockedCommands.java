package dev.outbox.relay.cli;

import static dev.outbox.relay.cli.AdminCommands.json;
import static dev.outbox.relay.cli.AdminCommands.printTable;

import dev.outbox.admin.BlockedKey;
import dev.outbox.admin.ChangeResult;
import dev.outbox.admin.OutboxAdmin;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code blocked}: the keys of ordered routes whose head failed for good (docs/ordering.md). */
final class BlockedCommands {

    private BlockedCommands() {}

    @Command(
            name = "blocked",
            mixinStandardHelpOptions = true,
            description =
                    "List the blocked keys of ordered routes, requeue their heads (the key resumes in order) or skip them"
                            + " (the key goes on with its next event).",
            subcommands = {BlockedList.class, BlockedRequeue.class, BlockedSkip.class})
    static final class BlockedRun implements Callable<Integer> {

        @ParentCommand
        RelayCommand parent;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "a command is required: blocked list, requeue or skip");
        }
    }

    abstract static class BlockedCommand implements Callable<Integer> {

        @ParentCommand
        BlockedRun blocked;

        @Spec
        CommandSpec spec;

        @Mixin
        AdminCommands.Format format;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        @Override
        public final Integer call() {
            return AdminCommands.withAdmin(blocked.parent.settings(), out(), this::run);
        }

        abstract int run(OutboxAdmin admin);
    }

    /** {@code blocked list}. */
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "Blocked keys, the longest blocked first, with their head.")
    static final class BlockedList extends BlockedCommand {

        @Option(
                names = "--limit",
                paramLabel = "N",
                defaultValue = "50",
                description = "Keys to list (1..10000, default ${DEFAULT-VALUE}).")
        int limit;

        @Override
        int run(OutboxAdmin admin) {
            if (limit < 1 || limit > OutboxAdmin.MAX_PAGE) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--limit must be a whole number from 1 to " + OutboxAdmin.MAX_PAGE + ", got " + limit);
            }
            List<BlockedKey> keys = admin.blockedKeys(limit);
            Instant now = Instant.now();
            if (format.json) {
                for (BlockedKey k : keys) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("jobType", k.jobType());
                    m.put("queue", k.queue());
                    m.put("orderingKey", k.orderingKey());
                    m.put("headDeliveryId", k.deliveryId().toString());
                    m.put("headEventId", k.eventId().toString());
                    m.put("eventType", k.eventType());
                    m.put("failureReason", k.failureReason());
                    m.put("failedAt", k.failedAt().toString());
                    m.put("ageSeconds", Duration.between(k.failedAt(), now).toSeconds());
                    json(out(), m);
                }
                return 0;
            }
            List<List<String>> table = new ArrayList<>();
            table.add(List.of("JOB TYPE", "QUEUE", "KEY", "HEAD DELIVERY", "REASON", "BLOCKED FOR", "EVENT TYPE"));
            for (BlockedKey k : keys) {
                table.add(List.of(
                        k.jobType(),
                        k.queue(),
                        AdminCommands.terminal(k.orderingKey()),
                        k.deliveryId().toString(),
                        k.failureReason(),
                        age(Duration.between(k.failedAt(), now)),
                        k.eventType()));
            }
            printTable(out(), table);
            out().println(keys.size() + " blocked key(s)");
            return 0;
        }
    }

    /** An age as {@code 2d3h}, {@code 4h5m}, {@code 6m7s} or {@code 8s}: the two largest units. */
    static String age(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s >= 86_400) {
            return s / 86_400 + "d" + s % 86_400 / 3600 + "h";
        }
        if (s >= 3600) {
            return s / 3600 + "h" + s % 3600 / 60 + "m";
        }
        return s >= 60 ? s / 60 + "m" + s % 60 + "s" : s + "s";
    }

    /** What {@code blocked requeue} and {@code blocked skip} share. */
    abstract static class BlockedChange extends BlockedCommand {

        @Option(names = "--id", paramLabel = "DELIVERY_ID", description = "This blocked head (repeatable).")
        List<UUID> ids = new ArrayList<>();

        @Option(names = "--all", description = "Every blocked head (required when no --id is given).")
        boolean all;

        @Option(names = "--dry-run", description = "Count what would change; change nothing.")
        boolean dryRun;

        @Override
        int run(OutboxAdmin admin) {
            if (ids.isEmpty() == !all) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "give --id DELIVERY_ID (repeatable) or --all, not both");
            }
            ChangeResult result = change(admin, dryRun);
            if (format.json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("command", "blocked " + verb());
                m.put("dryRun", result.dryRun());
                m.put("heads", result.deliveries());
                m.put(
                        "skipped",
                        result.skipped().stream()
                                .map(s -> Map.of("id", s.id().toString(), "state", s.state()))
                                .toList());
                json(out(), m);
                return 0;
            }
            if (result.deliveries() == 0) {
                out().println(result.dryRun() ? "dry run: nothing would be " + past() : "nothing " + past());
            } else if (result.dryRun()) {
                out().println("dry run: would " + verb() + " " + result.deliveries()
                        + " blocked head(s); nothing changed");
            } else {
                out().println(past() + " " + result.deliveries() + " blocked head(s): " + effect());
            }
            for (ChangeResult.Skipped s : result.skipped()) {
                out().println(
                                s.state().equals("absent")
                                        ? "left alone: " + s.id() + " does not exist"
                                        : "left alone: " + s.id() + " is " + s.state() + ", not a blocked head");
            }
            return 0;
        }

        abstract ChangeResult change(OutboxAdmin admin, boolean dryRun);

        abstract String verb();

        abstract String past();

        abstract String effect();
    }

    /** {@code blocked requeue}. */
    @Command(
            name = "requeue",
            mixinStandardHelpOptions = true,
            description = "Run blocked heads again in their place (T9): each key resumes in order.")
    static final class BlockedRequeue extends BlockedChange {

        @Override
        ChangeResult change(OutboxAdmin admin, boolean dryRun) {
            return admin.requeueBlocked(ids, dryRun);
        }

        @Override
        String verb() {
            return "requeue";
        }

        @Override
        String past() {
            return "requeued";
        }

        @Override
        String effect() {
            return "their keys resume in order";
        }
    }

    /** {@code blocked skip}. */
    @Command(
            name = "skip",
            mixinStandardHelpOptions = true,
            description = "Leave blocked heads failed and let each key go on with its next event (T9s).")
    static final class BlockedSkip extends BlockedChange {

        @Override
        ChangeResult change(OutboxAdmin admin, boolean dryRun) {
            return admin.skipBlocked(ids, dryRun);
        }

        @Override
        String verb() {
            return "skip";
        }

        @Override
        String past() {
            return "skipped";
        }

        @Override
        String effect() {
            return "they stay failed, their keys go on with the next event";
        }
    }
}
