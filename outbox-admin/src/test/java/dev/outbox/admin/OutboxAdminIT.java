package dev.outbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The admin library on a real PostgreSQL: every filter selects exactly its deliveries, pages walk
 * oldest first without gaps, requeue and removal change what their dry run counted and skip what
 * is not failed, the payload is read only when asked, and purge deletes exactly what its dry run
 * counted, in batches.
 */
class OutboxAdminIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    static final Instant T1 = NOW.minus(Duration.ofDays(3));
    static final Instant T2 = NOW.minus(Duration.ofDays(2));
    static final Instant T3 = NOW.minus(Duration.ofHours(1));

    static AdminFixture rows;
    static OutboxAdmin admin;

    // one delivery per criterion, so that each filter below matches exactly one or two of them
    UUID emailsTimeout;
    UUID emailsJobFailed;
    UUID smsTimeout;
    UUID published;
    UUID publishedEvent;

    @BeforeAll
    static void setUp() {
        rows = new AdminFixture(db.dataSource(), db.tables());
        admin = OutboxAdmin.of(db.dataSource(), db.tables(), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    @BeforeEach
    void failures() throws SQLException {
        db.truncate();
        emailsTimeout = rows.failed("order.placed", "send-confirmation", "emails", "timeout", T1);
        emailsJobFailed = rows.failed("order.cancelled", "send-confirmation", "emails", "job_failed", T2);
        smsTimeout = rows.failed("order.placed", "send-sms", "sms", "timeout", T3);
        publishedEvent = rows.event("invoice.issued", "{}", T1.minusSeconds(60), true);
        published = rows.delivery(
                publishedEvent,
                OutboxDeliveryStatus.failed,
                "notify-billing",
                "billing.invoice.issued",
                "billing",
                "publish_failed",
                T2.plusSeconds(1));
        // not failed: never listed, never requeued or removed
        UUID live = rows.event("order.placed", "{}", T1, true);
        rows.delivery(live, OutboxDeliveryStatus.pending, "a", "emails", null, null, T1);
        rows.delivery(live, OutboxDeliveryStatus.completed, "b", "emails", null, null, T1);
        rows.delivery(live, OutboxDeliveryStatus.dispatched, "c", "emails", null, null, T1);
    }

    List<UUID> listed(FailedFilter filter) {
        return admin.listFailed(filter, 100, null).deliveries().stream()
                .map(FailedDelivery::id)
                .toList();
    }

    static Stream<Arguments> filters() {
        return Stream.of(
                Arguments.of(
                        "all",
                        (UnaryOperator<FailedFilter>) f -> f,
                        List.of("emailsTimeout", "emailsJobFailed", "published", "smsTimeout")),
                Arguments.of(
                        "queue",
                        (UnaryOperator<FailedFilter>) f -> f.queue("emails"),
                        List.of("emailsTimeout", "emailsJobFailed")),
                Arguments.of(
                        "exchange", (UnaryOperator<FailedFilter>) f -> f.exchange("billing"), List.of("published")),
                Arguments.of(
                        "job type", (UnaryOperator<FailedFilter>) f -> f.jobType("send-sms"), List.of("smsTimeout")),
                Arguments.of(
                        "event type",
                        (UnaryOperator<FailedFilter>) f -> f.eventType("order.placed"),
                        List.of("emailsTimeout", "smsTimeout")),
                Arguments.of(
                        "reason",
                        (UnaryOperator<FailedFilter>) f -> f.reason("timeout"),
                        List.of("emailsTimeout", "smsTimeout")),
                Arguments.of(
                        "failed before",
                        (UnaryOperator<FailedFilter>) f -> f.failedBefore(T2),
                        List.of("emailsTimeout")),
                Arguments.of(
                        "failed after",
                        (UnaryOperator<FailedFilter>) f -> f.failedAfter(T2.plusSeconds(1)),
                        List.of("published", "smsTimeout")),
                Arguments.of(
                        "before and after",
                        (UnaryOperator<FailedFilter>) f -> f.failedAfter(T2).failedBefore(T3),
                        List.of("emailsJobFailed", "published")),
                Arguments.of(
                        "two criteria",
                        (UnaryOperator<FailedFilter>) f -> f.queue("emails").reason("timeout"),
                        List.of("emailsTimeout")));
    }

    UUID named(String name) {
        return switch (name) {
            case "emailsTimeout" -> emailsTimeout;
            case "emailsJobFailed" -> emailsJobFailed;
            case "smsTimeout" -> smsTimeout;
            case "published" -> published;
            default -> throw new IllegalArgumentException(name);
        };
    }

    @ParameterizedTest(name = "filter {0} lists exactly its deliveries, oldest first")
    @MethodSource("filters")
    void eachFilterListsExactlyItsDeliveriesOldestFirst(
            String name, UnaryOperator<FailedFilter> filter, List<String> expected) {
        assertThat(listed(filter.apply(FailedFilter.all())))
                .containsExactlyElementsOf(expected.stream().map(this::named).toList());
        assertThat(admin.countFailed(filter.apply(FailedFilter.all()))).isEqualTo(expected.size());
    }

    @ParameterizedTest(name = "filter {0}: the dry run of requeue counts what the requeue changes")
    @MethodSource("filters")
    void requeueByEachFilterChangesWhatItsDryRunCounted(
            String name, UnaryOperator<FailedFilter> filter, List<String> expected) {
        FailedFilter f = filter.apply(FailedFilter.all());

        ChangeResult dry = admin.requeue(f, true);
        assertThat(rows.status(named(expected.get(0)))).isEqualTo(OutboxDeliveryStatus.failed);
        ChangeResult real = admin.requeue(f, false);

        assertThat(dry).isEqualTo(new ChangeResult(true, expected.size(), 0, List.of()));
        assertThat(real).isEqualTo(new ChangeResult(false, expected.size(), 0, List.of()));
        expected.forEach(n -> assertThat(rows.status(named(n))).as(n).isEqualTo(OutboxDeliveryStatus.pending));
        assertThat(admin.countFailed(FailedFilter.all())).isEqualTo(4 - expected.size());
    }

    @ParameterizedTest(name = "filter {0}: the dry run of remove counts what the removal deletes")
    @MethodSource("filters")
    void removeByEachFilterDeletesWhatItsDryRunCounted(
            String name, UnaryOperator<FailedFilter> filter, List<String> expected) {
        FailedFilter f = filter.apply(FailedFilter.all());
        int deliveries = rows.deliveries();
        int events = rows.events();

        ChangeResult dry = admin.remove(f, true);
        assertThat(rows.deliveries()).isEqualTo(deliveries);
        ChangeResult real = admin.remove(f, false);

        assertThat(real.dryRun()).isFalse();
        assertThat(dry.deliveries()).isEqualTo(real.deliveries()).isEqualTo(expected.size());
        assertThat(dry.events())
                .isEqualTo(real.events())
                .isEqualTo(expected.size()); // each failed delivery has an event of its own
        assertThat(rows.deliveries()).isEqualTo(deliveries - expected.size());
        assertThat(rows.events()).isEqualTo(events - expected.size());
        expected.forEach(n -> assertThat(rows.row(named(n))).as(n).isNull());
    }

    @Test
    void filtersByDeliveryAndEventIds() {
        assertThat(listed(FailedFilter.ids(Set.of(smsTimeout, emailsTimeout))))
                .containsExactly(emailsTimeout, smsTimeout);
        assertThat(listed(FailedFilter.all().eventIds(Set.of(publishedEvent)))).containsExactly(published);
    }

    @Test
    void pagesWalkEveryFailureOnceOldestFirst() {
        FailedPage first = admin.listFailed(FailedFilter.all(), 3, null);
        assertThat(first.nextPage()).isPresent();
        FailedPage second = admin.listFailed(
                FailedFilter.all(), 3, FailedPage.Cursor.parse(first.next().toString()));

        assertThat(first.deliveries())
                .extracting(FailedDelivery::id)
                .containsExactly(emailsTimeout, emailsJobFailed, published);
        assertThat(second.deliveries()).extracting(FailedDelivery::id).containsExactly(smsTimeout);
        assertThat(second.nextPage()).isEmpty();
    }

    @Test
    void listsWhereAndWhyEachDeliveryFailed() {
        FailedDelivery d = admin.listFailed(FailedFilter.all().exchange("billing"), 10, null)
                .deliveries()
                .get(0);

        assertThat(d)
                .isEqualTo(new FailedDelivery(
                        published,
                        publishedEvent,
                        "invoice.issued",
                        "notify-billing",
                        "billing.invoice.issued",
                        "billing",
                        "rk",
                        2,
                        "publish_failed",
                        T2.plusSeconds(1),
                        T2.plusSeconds(1).minusSeconds(60)));
    }

    @Test
    void requeueByIdSkipsWhatIsNotFailedAndSaysWhy() {
        UUID event = rows.event("order.placed", "{}", T1, true);
        UUID completed = rows.delivery(event, OutboxDeliveryStatus.completed, "x", "emails", null, null, T1);
        UUID absent = UUID.randomUUID();

        ChangeResult dry = admin.requeue(FailedFilter.ids(Set.of(emailsTimeout, completed, absent)), true);
        ChangeResult real = admin.requeue(FailedFilter.ids(Set.of(emailsTimeout, completed, absent)), false);

        assertThat(real.deliveries()).isEqualTo(dry.deliveries()).isEqualTo(1);
        assertThat(real.skipped())
                .containsExactlyInAnyOrderElementsOf(dry.skipped())
                .containsExactlyInAnyOrder(
                        new ChangeResult.Skipped(completed, "completed"), new ChangeResult.Skipped(absent, "absent"));
        assertThat(rows.status(completed)).isEqualTo(OutboxDeliveryStatus.completed);
        assertThat(rows.row(emailsTimeout).getAttempts()).isZero();
        assertThat(rows.row(emailsTimeout).getAvailableAt().toInstant()).isEqualTo(NOW);
    }

    @Test
    void requeueingAgainChangesNothing() {
        admin.requeue(FailedFilter.ids(Set.of(emailsTimeout)), false);

        ChangeResult again = admin.requeue(FailedFilter.ids(Set.of(emailsTimeout)), false);

        assertThat(again)
                .isEqualTo(new ChangeResult(false, 0, 0, List.of(new ChangeResult.Skipped(emailsTimeout, "pending"))));
    }

    @Test
    void requeuesInBatchesLargerThanOne() {
        ChangeResult result = admin.withBatchSize(1).requeue(FailedFilter.all(), false);

        assertThat(result.deliveries()).isEqualTo(4);
        assertThat(admin.countFailed(FailedFilter.all())).isZero();
    }

    @Test
    void removalKeepsAnEventThatStillHasADelivery() {
        UUID event = rows.event("order.placed", "{}", T1, true);
        UUID failed = rows.delivery(event, OutboxDeliveryStatus.failed, "x", "emails", null, "timeout", T1);
        rows.delivery(event, OutboxDeliveryStatus.completed, "y", "emails", null, null, T1);

        ChangeResult dry = admin.remove(FailedFilter.ids(Set.of(failed)), true);
        ChangeResult real = admin.remove(FailedFilter.ids(Set.of(failed)), false);

        assertThat(dry.events()).isEqualTo(real.events()).isZero();
        assertThat(real.deliveries()).isEqualTo(1);
        assertThat(rows.eventExists(event)).isTrue();
    }

    @Test
    void removalAcrossBatchesDeletesTheEventOfSeveralFailedDeliveries() {
        UUID event = rows.event("order.placed", "{}", T1, true);
        UUID a = rows.delivery(event, OutboxDeliveryStatus.failed, "x", "emails", null, "timeout", T1);
        UUID b = rows.delivery(event, OutboxDeliveryStatus.failed, "y", "emails", null, "timeout", T1.plusSeconds(1));
        OutboxAdmin oneAtATime = admin.withBatchSize(1);

        ChangeResult dry = oneAtATime.remove(FailedFilter.ids(Set.of(a, b)), true);
        ChangeResult real = oneAtATime.remove(FailedFilter.ids(Set.of(a, b)), false);

        assertThat(dry).isEqualTo(new ChangeResult(true, 2, 1, List.of()));
        assertThat(real).isEqualTo(new ChangeResult(false, 2, 1, List.of()));
        assertThat(rows.eventExists(event)).isFalse();
    }

    @Test
    void showsADeliveryWithoutItsPayloadUnlessAsked() {
        DeliveryDetails plain = admin.show(emailsTimeout, false).orElseThrow();
        DeliveryDetails withPayload = admin.show(emailsTimeout, true).orElseThrow();

        assertThat(plain.payloadText()).isEmpty();
        assertThat(plain.toString()).doesNotContain("s3cr3t");
        assertThat(withPayload.payloadText())
                .hasValueSatisfying(p -> assertThat(p).contains("s3cr3t"));
        assertThat(plain.status()).isEqualTo("failed");
        assertThat(plain.failureReason()).isEqualTo("timeout");
        assertThat(plain.eventType()).isEqualTo("order.placed");
        assertThat(plain.retryDelaysSeconds()).containsExactly(60);
        assertThat(admin.show(UUID.randomUUID(), false)).isEmpty();
    }

    @Test
    void purgeDeletesWhatItsDryRunCountedAndNothingElse() {
        UUID oldDone = rows.event("order.placed", "{}", NOW.minus(Duration.ofDays(9)), true);
        rows.delivery(
                oldDone, OutboxDeliveryStatus.completed, "a", "emails", null, null, NOW.minus(Duration.ofDays(8)));
        UUID mixed = rows.event("order.placed", "{}", NOW.minus(Duration.ofDays(9)), true);
        rows.delivery(mixed, OutboxDeliveryStatus.completed, "a", "emails", null, null, NOW.minus(Duration.ofDays(8)));
        UUID recent = rows.delivery(
                mixed, OutboxDeliveryStatus.completed, "b", "emails", null, null, NOW.minus(Duration.ofHours(2)));
        UUID oldUnrouted = rows.event("order.placed", "{}", NOW.minus(Duration.ofDays(40)), false);
        UUID newUnrouted = rows.event("order.placed", "{}", NOW.minus(Duration.ofDays(1)), false);
        Retention retention = Retention.of()
                .completed(Duration.ofDays(7))
                .failed(Duration.ofDays(2).minusMillis(500))
                .unrouted(Duration.ofDays(30))
                .batchSize(1);

        PurgeResult dry = admin.purge(retention, true);
        PurgeResult real = admin.purge(retention, false);

        // completed: the two of 8 days; failed: emailsTimeout (3 days) and emailsJobFailed (2 days; published, half a
        // second later, is not)
        assertThat(List.of(dry.completed(), dry.failed(), dry.events(), dry.unrouted()))
                .containsExactly(2L, 2L, 3L, 1L);
        assertThat(List.of(real.completed(), real.failed(), real.events(), real.unrouted()))
                .containsExactly(2L, 2L, 3L, 1L);
        assertThat(real.batches()).isEqualTo(8);
        assertThat(rows.eventExists(oldDone)).isFalse();
        assertThat(rows.eventExists(mixed)).isTrue();
        assertThat(rows.row(recent)).isNotNull();
        assertThat(rows.eventExists(oldUnrouted)).isFalse();
        assertThat(rows.eventExists(newUnrouted)).isTrue();
        assertThat(rows.status(published))
                .as("failed 2 days ago, within retention")
                .isEqualTo(OutboxDeliveryStatus.failed);
        assertThat(admin.purge(retention, true).total()).isZero();
    }

    @Test
    void purgeLeavesUnroutedEventsAloneUnlessAsked() {
        UUID unrouted = rows.event("order.placed", "{}", NOW.minus(Duration.ofDays(400)), false);

        admin.purge(Retention.of().completed(Duration.ofMinutes(1)).failed(Duration.ofMinutes(1)), false);

        assertThat(rows.eventExists(unrouted)).isTrue();
    }

    @Test
    void exclusivePurgeStepsAsideWhileAnotherRuns() throws Exception {
        try (var connection = db.dataSource().getConnection();
                var statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_lock(" + admin.retentionLockKey() + ")");

            assertThat(admin.purgeExclusively(Retention.of().completed(Duration.ofMinutes(1))))
                    .isEmpty();

            statement.execute("SELECT pg_advisory_unlock(" + admin.retentionLockKey() + ")");
        }
        assertThat(admin.purgeExclusively(Retention.of().completed(Duration.ofMinutes(1))))
                .isPresent();
    }

    @Test
    void refusesBadFiltersNamingWhatIsWrong() {
        assertThatThrownBy(() -> FailedFilter.all().reason("Timeout!")).hasMessageContaining("failure reason");
        assertThatThrownBy(() -> FailedFilter.all().queue("")).hasMessageContaining("queue");
        assertThatThrownBy(() -> FailedFilter.all().failedAfter(T3).failedBefore(T1))
                .hasMessageContaining("failed-after");
        assertThatThrownBy(() -> FailedPage.Cursor.parse("yesterday")).hasMessageContaining("FAILED_AT/DELIVERY_ID");
        assertThatThrownBy(() -> Retention.of().completed(Duration.ZERO))
                .hasMessageContaining("completed age must be positive");
        assertThatThrownBy(() -> admin.listFailed(FailedFilter.all(), 0, null)).hasMessageContaining("page size");
    }
}
