package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outbox.admin.AdminFixture;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.TestPostgres;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code failed list|show|requeue|remove}, {@code purge} and {@code status --json} run in this JVM
 * against a real PostgreSQL: each filter option, table and JSON output, dry runs equal to the real
 * runs, one-line errors with exit 2, and no payload unless asked for.
 */
class AdminCommandIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final ObjectMapper JSON = new ObjectMapper();
    // the commands read the wall clock: times are set before each test, far from every boundary below
    Instant now;
    Instant t1;
    Instant t2;
    Instant t3;

    static AdminFixture rows;
    static Map<String, String> env;

    UUID emailsTimeout;
    UUID emailsJobFailed;
    UUID smsTimeout;
    UUID published;
    UUID publishedEvent;
    UUID completed;

    record Run(int exitCode, String out, String err) {
        List<JsonNode> lines() {
            return out.lines()
                    .map(l -> {
                        try {
                            return JSON.readTree(l);
                        } catch (Exception e) {
                            throw new AssertionError("not a JSON line: " + l, e);
                        }
                    })
                    .toList();
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = RelayCommand.run(args, env, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    @BeforeAll
    static void settings() {
        rows = new AdminFixture(db.dataSource(), db.tables());
        TestPostgres pg = TestPostgres.get();
        env = new HashMap<>();
        env.put("OUTBOX_JDBC_URL", pg.jdbcUrl());
        env.put("OUTBOX_JDBC_USER", pg.user());
        env.put("OUTBOX_JDBC_PASSWORD", pg.password());
        env.put("OUTBOX_SCHEMA", db.schema());
    }

    @BeforeEach
    void failures() throws Exception {
        db.truncate();
        now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        t1 = now.minus(Duration.ofDays(3));
        t2 = now.minus(Duration.ofDays(2));
        t3 = now.minus(Duration.ofHours(1));
        emailsTimeout = rows.failed("order.placed", "send-confirmation", "emails", "timeout", t1);
        emailsJobFailed = rows.failed("order.cancelled", "send-confirmation", "emails", "job_failed", t2);
        smsTimeout = rows.failed("order.placed", "send-sms", "sms", "timeout", t3);
        publishedEvent = rows.event("invoice.issued", "{\"secret\":\"s3cr3t\"}", t1, true);
        published = rows.delivery(
                publishedEvent,
                OutboxDeliveryStatus.failed,
                "notify-billing",
                "billing.invoice.issued",
                "billing",
                "publish_failed",
                t2.plusSeconds(1));
        completed = rows.delivery(
                rows.event("order.placed", "{}", t1, true),
                OutboxDeliveryStatus.completed,
                "x",
                "emails",
                null,
                null,
                t1);
    }

    List<String> ids(Run run) {
        assertThat(run.exitCode()).as(run.err()).isZero();
        return run.lines().stream().map(n -> n.get("id").asText()).toList();
    }

    static Stream<Arguments> filterOptions() {
        return Stream.of(
                Arguments.of(List.of(), List.of("emailsTimeout", "emailsJobFailed", "published", "smsTimeout")),
                Arguments.of(List.of("--queue", "emails"), List.of("emailsTimeout", "emailsJobFailed")),
                Arguments.of(List.of("--exchange", "billing"), List.of("published")),
                Arguments.of(List.of("--job-type", "send-sms"), List.of("smsTimeout")),
                Arguments.of(List.of("--event-type", "order.placed"), List.of("emailsTimeout", "smsTimeout")),
                Arguments.of(List.of("--reason", "timeout"), List.of("emailsTimeout", "smsTimeout")),
                Arguments.of(
                        List.of("--failed-before", "47h"), List.of("emailsTimeout", "emailsJobFailed", "published")),
                Arguments.of(List.of("--failed-after", "36h"), List.of("smsTimeout")),
                Arguments.of(
                        List.of("--failed-after", "2d1h", "--failed-before", "47h"),
                        List.of("emailsJobFailed", "published")),
                Arguments.of(List.of("--queue", "emails", "--reason", "timeout"), List.of("emailsTimeout")));
    }

    String named(String name) {
        return switch (name) {
            case "emailsTimeout" -> emailsTimeout.toString();
            case "emailsJobFailed" -> emailsJobFailed.toString();
            case "smsTimeout" -> smsTimeout.toString();
            case "published" -> published.toString();
            default -> throw new IllegalArgumentException(name);
        };
    }

    static String[] args(List<String> head, List<String> options, String... tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(options);
        all.addAll(List.of(tail));
        return all.toArray(String[]::new);
    }

    @ParameterizedTest(name = "failed list {0}")
    @MethodSource("filterOptions")
    void listsWhatEachFilterOptionSelects(List<String> options, List<String> expected) {
        assertThat(ids(run(args(List.of("failed", "list"), options, "--json"))))
                .containsExactlyElementsOf(expected.stream().map(this::named).toList());
    }

    @ParameterizedTest(name = "failed requeue {0}: dry run equals the run")
    @MethodSource("filterOptions")
    void requeueDryRunCountsWhatTheRequeueChanges(List<String> options, List<String> expected) throws Exception {
        List<String> scope = options.isEmpty() ? List.of("--all") : options;
        JsonNode dry = run(args(List.of("failed", "requeue"), scope, "--dry-run", "--json"))
                .lines()
                .get(0);
        assertThat(rows.status(UUID.fromString(named(expected.get(0))))).isEqualTo(OutboxDeliveryStatus.failed);
        JsonNode real =
                run(args(List.of("failed", "requeue"), scope, "--json")).lines().get(0);

        assertThat(dry.get("dryRun").asBoolean()).isTrue();
        assertThat(real.get("dryRun").asBoolean()).isFalse();
        assertThat(dry.get("deliveries").asInt())
                .isEqualTo(real.get("deliveries").asInt())
                .isEqualTo(expected.size());
        expected.forEach(
                n -> assertThat(rows.status(UUID.fromString(named(n)))).isEqualTo(OutboxDeliveryStatus.pending));
    }

    @ParameterizedTest(name = "failed remove {0}: dry run equals the run")
    @MethodSource("filterOptions")
    void removeDryRunCountsWhatTheRemovalDeletes(List<String> options, List<String> expected) {
        List<String> scope = options.isEmpty() ? List.of("--all") : options;
        JsonNode dry = run(args(List.of("failed", "remove"), scope, "--dry-run", "--json"))
                .lines()
                .get(0);
        JsonNode real =
                run(args(List.of("failed", "remove"), scope, "--json")).lines().get(0);

        assertThat(dry.get("deliveries").asInt())
                .isEqualTo(real.get("deliveries").asInt())
                .isEqualTo(expected.size());
        assertThat(dry.get("events").asInt())
                .isEqualTo(real.get("events").asInt())
                .isEqualTo(expected.size());
        expected.forEach(n -> assertThat(rows.row(UUID.fromString(named(n)))).isNull());
    }

    @Test
    void takesInstantsAsWellAsDurationsAgo() {
        assertThat(ids(run(
                        "failed", "list", "--failed-after", t2.toString(), "--failed-before", t3.toString(), "--json")))
                .containsExactly(emailsJobFailed.toString(), published.toString());
    }

    @Test
    void listsByDeliveryAndEventIds() {
        assertThat(ids(run(
                        "failed", "list", "--id", smsTimeout.toString(), "--id", emailsTimeout.toString(), "--json")))
                .containsExactly(emailsTimeout.toString(), smsTimeout.toString());
        assertThat(ids(run("failed", "list", "--event-id", publishedEvent.toString(), "--json")))
                .containsExactly(published.toString());
    }

    @Test
    void listPrintsATableWithoutPayloads() {
        Run run = run("failed", "list");

        assertThat(run.exitCode()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(lines.get(0))
                .startsWith("DELIVERY")
                .contains("FAILED AT", "REASON", "ATTEMPTS", "QUEUE / EXCHANGE", "JOB TYPE", "EVENT TYPE");
        assertThat(lines.get(1))
                .startsWith(emailsTimeout.toString())
                .contains("timeout", "emails", "send-confirmation", "order.placed");
        assertThat(lines.get(3)).contains("exchange billing", "publish_failed");
        assertThat(lines).last().isEqualTo("4 failed delivery(ies)");
        assertThat(run.out()).doesNotContain("s3cr3t");
    }

    @Test
    void listPagesWithTheCursorItPrints() {
        Run first = run("failed", "list", "--limit", "3");
        String last = first.out().lines().reduce((a, b) -> b).orElseThrow();
        assertThat(last).startsWith("3 failed delivery(ies); next page: --after ");
        String cursor = last.substring(last.indexOf("--after ") + "--after ".length());

        assertThat(ids(run("failed", "list", "--limit", "3", "--after", cursor, "--json")))
                .containsExactly(smsTimeout.toString());
        assertThat(run("failed", "list", "--limit", "3", "--json")
                        .lines()
                        .get(2)
                        .get("cursor")
                        .asText())
                .isEqualTo(cursor);
    }

    @Test
    void listJsonIsOneObjectPerLineWithoutPayloads() {
        Run run = run("failed", "list", "--exchange", "billing", "--json");

        assertThat(run.out()).hasLineCount(1).doesNotContain("s3cr3t").doesNotContain("payload");
        JsonNode d = run.lines().get(0);
        assertThat(d.get("id").asText()).isEqualTo(published.toString());
        assertThat(d.get("eventId").asText()).isEqualTo(publishedEvent.toString());
        assertThat(d.get("exchange").asText()).isEqualTo("billing");
        assertThat(d.get("routingKey").asText()).isEqualTo("rk");
        assertThat(d.get("failureReason").asText()).isEqualTo("publish_failed");
        assertThat(d.get("attempts").asInt()).isEqualTo(2);
        assertThat(Instant.parse(d.get("failedAt").asText())).isEqualTo(t2.plusSeconds(1));
    }

    @Test
    void showPrintsThePayloadOnlyWhenAsked() {
        Run plain = run("failed", "show", published.toString());
        Run plainJson = run("failed", "show", published.toString(), "--json");
        Run withPayload = run("failed", "show", published.toString(), "--payload");
        Run withPayloadJson = run("failed", "show", published.toString(), "--payload", "--json");

        assertThat(plain.exitCode()).isZero();
        assertThat(plain.out())
                .contains("status", "failed", "publish_failed", "invoice.issued")
                .doesNotContain("s3cr3t");
        assertThat(plainJson.out()).hasLineCount(1).doesNotContain("s3cr3t");
        assertThat(plainJson.lines().get(0).has("payload")).isFalse();
        assertThat(withPayload.out()).contains("s3cr3t");
        assertThat(withPayloadJson.lines().get(0).get("payload").get("secret").asText())
                .isEqualTo("s3cr3t");
    }

    @Test
    void showOfAnUnknownDeliveryIsOneLineAndExit2() {
        Run run = run("failed", "show", UUID.randomUUID().toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("outbox-relay: no delivery ").hasLineCount(1);
    }

    @Test
    void requeueOfADeliveryThatIsNotFailedChangesNothingAndSaysSo() {
        Run run = run("failed", "requeue", "--id", completed.toString());

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .contains("left alone: " + completed + " is completed, not failed")
                .contains("nothing requeued");
        assertThat(rows.status(completed)).isEqualTo(OutboxDeliveryStatus.completed);
    }

    @Test
    void requeueTablePrintsWhatChanged() {
        Run dry = run("failed", "requeue", "--reason", "timeout", "--dry-run");
        Run real = run("failed", "requeue", "--reason", "timeout");

        assertThat(dry.out()).startsWith("dry run: would requeue 2 failed delivery(ies); nothing changed");
        assertThat(real.out()).startsWith("requeued 2 failed delivery(ies)");
    }

    @Test
    void requeueAndRemoveRefuseToActOnEverythingWithoutAll() {
        for (String command : List.of("requeue", "remove")) {
            Run run = run("failed", command);

            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err()).contains("give a filter").contains("--all").hasLineCount(1);
        }
        assertThat(rows.status(emailsTimeout)).isEqualTo(OutboxDeliveryStatus.failed);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "--failed-before=yesterday",
                "--failed-after=7 days",
                "--reason=Timeout!",
                "--id=not-a-uuid",
                "--queue=",
                "--limit=0",
                "--after=nonsense",
                "--no-such-option"
            })
    void aBadOptionOrFilterIsOneLineAndExit2(String option) {
        Run run = run("failed", "list", option);

        assertThat(run.exitCode()).as(run.out()).isEqualTo(2);
        assertThat(run.err()).startsWith("outbox-relay: ").hasLineCount(1);
        assertThat(run.out()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"--completed=7", "--completed=7days", "--failed=0d", "--unrouted=-1h", "--batch-size=0"})
    void aBadPurgeOptionIsOneLineAndExit2(String option) {
        Run run = run("purge", "--completed=30d", option);

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("outbox-relay: ").hasLineCount(1);
    }

    @Test
    void purgeWithoutAnAgeIsRefused() {
        Run run = run("purge");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--completed, --failed, --unrouted").hasLineCount(1);
    }

    @Test
    void purgeDeletesWhatItsDryRunCounted() {
        UUID unrouted = rows.event("order.placed", "{}", now.minus(Duration.ofDays(100)), false);

        JsonNode dry = run("purge", "--completed", "1d", "--failed", "36h", "--dry-run", "--json")
                .lines()
                .get(0);
        JsonNode real = run("purge", "--completed", "1d", "--failed", "36h", "--json")
                .lines()
                .get(0);

        for (String field : List.of("completed", "failed", "events", "unrouted")) {
            assertThat(real.get(field).asLong())
                    .as(field)
                    .isEqualTo(dry.get(field).asLong());
        }
        assertThat(real.get("completed").asLong()).isEqualTo(1);
        assertThat(real.get("failed").asLong()).isEqualTo(3);
        assertThat(real.get("events").asLong()).isEqualTo(4);
        assertThat(real.get("unrouted").asLong()).isZero();
        assertThat(rows.eventExists(unrouted))
                .as("unrouted events only when asked")
                .isTrue();
        assertThat(rows.status(smsTimeout)).isEqualTo(OutboxDeliveryStatus.failed);
    }

    @Test
    void purgePrintsOneLine() {
        Run run = run("purge", "--unrouted", "30d");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .hasLineCount(1)
                .startsWith("deleted 0 completed and 0 failed delivery(ies), 0 event(s) left");
    }

    @Test
    void statusJsonIsOneObject() {
        Run run = run("status", "--json");

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).hasLineCount(1);
        JsonNode status = run.lines().get(0);
        assertThat(status.get("failuresByReason").get("timeout").asLong()).isEqualTo(2);
        assertThat(status.get("queues").findValuesAsText("name")).contains("emails", "sms");
        assertThat(status.get("unroutedEvents").asLong()).isZero();
    }
}
