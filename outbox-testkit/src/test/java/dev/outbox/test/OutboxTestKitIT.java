package dev.outbox.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.api.Outbox;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.worker.JobContext;
import dev.outbox.worker.JobHandler;
import dev.outbox.worker.JobRun;
import dev.outbox.worker.RetryableOutboxException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OutboxTestKitIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    private static final Routes ROUTES = Routes.builder()
            .route(
                    "parcel.shipped",
                    Route.job("notify-customer", "notifications", RetrySchedule.seconds(30, 60), Duration.ofMinutes(1)),
                    Route.job("bill-carrier", "billing", List.of(), Duration.ofMinutes(1)),
                    Route.publish(
                            "parcel-events",
                            "parcels",
                            "parcel.shipped",
                            RetrySchedule.seconds(5),
                            Duration.ofMinutes(1)))
            .build();

    private final Outbox outbox =
            Outbox.builder().tables(db.tables()).notifications(false).build();
    private DSLContext dsl;
    private TestClock clock;

    @BeforeEach
    void clean() throws SQLException {
        db.truncate();
        dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
        clock = TestClock.startingNow();
    }

    private OutboxTestKit.Builder kit() {
        return OutboxTestKit.builder()
                .dataSource(db.dataSource())
                .tables(db.tables())
                .routes(ROUTES)
                .clock(clock);
    }

    private UUID ship(long parcelId) {
        return dsl.transactionResult(tx -> outbox.record(tx.dsl(), new Shipped(parcelId, "acme")));
    }

    @Test
    void findsTheRecordedEventByTypeAndPredicate() {
        OutboxTestKit kit = kit().build();
        UUID id = ship(1);
        ship(2);

        RecordedEvent<Shipped> found = kit.requireRecorded(Shipped.class, s -> s.parcelId() == 2);

        assertThat(found.event()).isEqualTo(new Shipped(2, "acme"));
        assertThat(found.id()).isNotEqualTo(id);
        assertThat(found.routed()).isFalse();
        assertThat(kit.recorded(Shipped.class))
                .extracting(RecordedEvent::id)
                .first()
                .isEqualTo(id);
    }

    @Test
    void seesAnEventInTheOpenTransactionOnlyThroughThatTransaction() {
        OutboxTestKit kit = kit().build();
        dsl.transaction(tx -> {
            outbox.record(tx.dsl(), new Shipped(7, "acme"));
            assertThat(kit.requireRecorded(tx.dsl(), Shipped.class, s -> s.parcelId() == 7)
                            .event()
                            .carrier())
                    .isEqualTo("acme");
            kit.requireNotRecorded(Shipped.class); // not committed: another connection sees nothing
        });
        kit.requireRecorded(Shipped.class, s -> s.parcelId() == 7);
    }

    @Test
    void failsNamingWhatWasRecordedWhenNothingMatches() {
        OutboxTestKit kit = kit().build();
        ship(1);

        assertThatThrownBy(() -> kit.requireRecorded(Shipped.class, s -> s.parcelId() == 99))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(
                        "expected one recorded event of type parcel.shipped matching the predicate, found 0")
                .hasMessageContaining("1 of that type recorded; recorded: parcel.shipped x1");
        assertThatThrownBy(() -> kit.requireRecorded("order.placed", Shipped.class, s -> true))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("found 0; 0 of that type recorded");
    }

    @Test
    void refusesAnAmbiguousMatch() {
        OutboxTestKit kit = kit().build();
        ship(1);
        ship(2);

        assertThatThrownBy(() -> kit.requireRecorded(Shipped.class, s -> true))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("found 2 (ids ");
    }

    @Test
    void requireNotRecordedFailsWithTheCount() {
        OutboxTestKit kit = kit().build();
        kit.requireNotRecorded("parcel.shipped");
        ship(1);

        assertThatThrownBy(() -> kit.requireNotRecorded("parcel.shipped"))
                .isInstanceOf(AssertionError.class)
                .hasMessage("expected no recorded event of type parcel.shipped, found 1");
    }

    @Test
    void routesWithTheGivenRoutesAndRunsTheRegisteredHandlersToCompletion() {
        List<Shipped> notified = new ArrayList<>();
        List<JobContext> contexts = new ArrayList<>();
        OutboxTestKit kit = kit().handler("notify-customer", Shipped.class, (event, context) -> {
                    notified.add(event);
                    contexts.add(context);
                    assertThat(context.isCurrentAttempt()).isTrue();
                })
                .build();
        UUID eventId = ship(3);

        List<JobRun> runs = kit.drain();

        assertThat(notified).containsExactly(new Shipped(3, "acme"));
        assertThat(runs).singleElement().satisfies(run -> {
            assertThat(run.outcome()).isEqualTo(JobRun.Outcome.COMPLETED);
            assertThat(run.eventId()).isEqualTo(eventId);
            assertThat(run.attempt()).isEqualTo(1);
            assertThat(run.event(Shipped.class).parcelId()).isEqualTo(3);
        });
        assertThat(contexts.get(0).queue()).isEqualTo("notifications");
        assertThat(contexts.get(0).lastAttempt()).isFalse();
        assertThat(kit.requireDelivery(eventId, "notify-customer").status()).isEqualTo(Delivery.Status.COMPLETED);
        assertThat(kit.recorded(Shipped.class).get(0).routed()).isTrue();
    }

    @Test
    void leavesDeliveriesWithoutAHandlerHerePendingAndUntouched() {
        OutboxTestKit kit = kit().handler("notify-customer", Shipped.class, (event, context) -> {})
                .build();
        UUID eventId = ship(4);

        kit.drain();

        assertThat(kit.deliveriesOf(eventId))
                .extracting(Delivery::jobType, Delivery::status, Delivery::attempts)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("notify-customer", Delivery.Status.COMPLETED, 1),
                        org.assertj.core.groups.Tuple.tuple("bill-carrier", Delivery.Status.PENDING, 0),
                        org.assertj.core.groups.Tuple.tuple("parcel-events", Delivery.Status.PENDING, 0));
    }

    @Test
    void aRetryableErrorSchedulesTheNextAttemptByTheRoutesDelayAndRunsItWhenTheClockGetsThere() {
        AtomicInteger calls = new AtomicInteger();
        OutboxTestKit kit = kit().handler("notify-customer", Shipped.class, (event, context) -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new RetryableOutboxException("mail server busy");
                    }
                })
                .build();
        UUID eventId = ship(5);

        assertThat(kit.drain()).extracting(JobRun::outcome).containsExactly(JobRun.Outcome.RETRY_SCHEDULED);
        Delivery waiting = kit.requireDelivery(eventId, "notify-customer");
        assertThat(waiting.status()).isEqualTo(Delivery.Status.PENDING);
        assertThat(waiting.availableAt().toInstant())
                .isEqualTo(clock.instant().plusSeconds(30).truncatedTo(ChronoUnit.MICROS));
        assertThat(kit.runJobs()).as("not ready before its delay").isEmpty();

        clock.advance(Duration.ofSeconds(30));
        assertThat(kit.runJobs())
                .extracting(JobRun::outcome, JobRun::attempt)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(JobRun.Outcome.COMPLETED, 2));
        assertThat(kit.requireDelivery(eventId, "notify-customer").status()).isEqualTo(Delivery.Status.COMPLETED);
        assertThat(kit.runs("notify-customer")).hasSize(2);
    }

    @Test
    void aRetryableErrorWithNoRetryLeftFailsRetriesExhausted() {
        OutboxTestKit kit = kit().handler("bill-carrier", Shipped.class, (event, context) -> {
                    assertThat(context.lastAttempt()).isTrue();
                    throw new RetryableOutboxException("carrier api down");
                })
                .build();
        UUID eventId = ship(6);

        assertThat(kit.drain()).singleElement().satisfies(run -> {
            assertThat(run.outcome()).isEqualTo(JobRun.Outcome.FAILED);
            assertThat(run.failureReason()).isEqualTo("retries_exhausted");
            assertThat(run.thrown()).isInstanceOf(RetryableOutboxException.class);
        });
        assertThat(kit.requireDelivery(eventId, "bill-carrier"))
                .extracting(Delivery::status, Delivery::failureReason)
                .containsExactly(Delivery.Status.FAILED, "retries_exhausted");
    }

    @Test
    void anyOtherExceptionFailsJobFailedAndAnErrorFailsWorkerDied() {
        JobHandler<Shipped> declined = (event, context) -> {
            throw new IllegalStateException("declined");
        };
        JobHandler<Shipped> dies = (event, context) -> {
            throw new StackOverflowError();
        };
        OutboxTestKit kit = kit().handler("bill-carrier", Shipped.class, declined)
                .handler("notify-customer", Shipped.class, dies)
                .build();
        UUID eventId = ship(8);

        kit.drain();

        assertThat(kit.requireDelivery(eventId, "bill-carrier"))
                .extracting(Delivery::status, Delivery::failureReason)
                .containsExactly(Delivery.Status.FAILED, "job_failed");
        assertThat(kit.requireDelivery(eventId, "notify-customer"))
                .extracting(Delivery::status, Delivery::failureReason)
                .containsExactly(Delivery.Status.FAILED, "worker_died");
        assertThat(kit.runs("bill-carrier").get(0).thrown()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void drainsWhatTheHandlersRecordInTheirTurn() {
        Outbox inner = Outbox.builder().tables(db.tables()).notifications(false).build();
        OutboxTestKit kit = kit().handler("bill-carrier", Shipped.class, (event, context) -> {
                    if (event.parcelId() < 12) {
                        dsl.transaction(tx -> inner.record(tx.dsl(), new Shipped(event.parcelId() + 1, "acme")));
                    }
                })
                .build();
        ship(10);

        assertThat(kit.drain())
                .extracting(run -> run.event(Shipped.class).parcelId())
                .containsExactly(10L, 11L, 12L);
    }

    @Test
    void failsWithoutRunningWhatNoRouteCreated() {
        OutboxTestKit kit = OutboxTestKit.builder()
                .dataSource(db.dataSource())
                .tables(db.tables())
                .build();
        ship(1);

        assertThatThrownBy(kit::route).isInstanceOf(IllegalStateException.class).hasMessageContaining("routes(");
        assertThatThrownBy(kit::runJobs)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handler(");
        assertThatThrownBy(() -> OutboxTestKit.builder()
                        .dataSource(db.dataSource())
                        .handler("x", Shipped.class, (e, c) -> {})
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("routes:");
        assertThatThrownBy(() -> OutboxTestKit.builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("dataSource or dsl");
    }
}
