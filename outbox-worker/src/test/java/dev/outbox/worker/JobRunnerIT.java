package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.api.EventType;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.WorkerFixture.Sent;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link JobRunner}: the worker's rules for one dispatched delivery, in the calling thread. */
class JobRunnerIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @EventType("invoice.due")
    public record InvoiceDue(long invoiceId, String email) {}

    /** Reads the e-mail address as a number: the event cannot be read as this. */
    public record Numeric(long email) {}

    private WorkerFixture fixture;

    @BeforeEach
    void open() throws Exception {
        db.truncate();
        fixture = new WorkerFixture(db, rabbit);
    }

    @AfterEach
    void close() throws Exception {
        fixture.close();
    }

    private JobRunner.Builder runner() {
        return JobRunner.builder()
                .dataSource(db.dataSource())
                .tables(db.tables())
                .clock(fixture.clock);
    }

    @Test
    void runsTheHandlerOnceAndASecondRunOfTheSameDispatchChangesNothing() {
        AtomicInteger calls = new AtomicInteger();
        JobRunner runner = runner().handler("remind", InvoiceDue.class, (event, context) -> calls.incrementAndGet())
                .build();
        Sent sent = fixture.dispatched(new InvoiceDue(1, "a@example.com"), "remind", "reminders", List.of(60));

        JobRun first = runner.run(sent.deliveryId(), sent.dispatchId());
        JobRun second = runner.run(sent.deliveryId(), sent.dispatchId());

        assertThat(first.outcome()).isEqualTo(JobRun.Outcome.COMPLETED);
        assertThat(first.event(InvoiceDue.class)).isEqualTo(new InvoiceDue(1, "a@example.com"));
        assertThat(second.outcome()).isEqualTo(JobRun.Outcome.NOT_CURRENT);
        assertThat(calls).hasValue(1);
        assertThat(fixture.status(sent.deliveryId())).isEqualTo(OutboxDeliveryStatus.completed);
    }

    @Test
    void anUnknownDeliveryIsNotCurrentAndRunsNothing() {
        JobRunner runner = runner().handler("remind", InvoiceDue.class, (event, context) -> {
                    throw new AssertionError("must not run");
                })
                .build();

        JobRun run = runner.run(UUID.randomUUID(), UUID.randomUUID());

        assertThat(run.outcome()).isEqualTo(JobRun.Outcome.NOT_CURRENT);
        assertThatThrownBy(() -> run.event(InvoiceDue.class)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void failsADeliveryWhoseJobTypeHasNoHandlerUnknownJobType() {
        JobRunner runner = runner().handler("remind", InvoiceDue.class, (event, context) -> {})
                .build();
        Sent sent = fixture.dispatched(new InvoiceDue(2, "a@example.com"), "archive", "archive", List.of(60));

        JobRun run = runner.run(sent.deliveryId(), sent.dispatchId());

        assertThat(run.outcome()).isEqualTo(JobRun.Outcome.FAILED);
        assertThat(run.failureReason()).isEqualTo("unknown_job_type");
        assertThat(fixture.row(sent.deliveryId()).getFailureReason()).isEqualTo("unknown_job_type");
    }

    @Test
    void failsAnEventThatCannotBeReadAsTheHandlersClassUndeserializableEvent() {
        JobRunner runner = runner().handler("remind", Numeric.class, (event, context) -> {
                    throw new AssertionError("must not run");
                })
                .build();
        Sent sent = fixture.dispatched(new InvoiceDue(3, "a@example.com"), "remind", "reminders", List.of(60));

        JobRun run = runner.run(sent.deliveryId(), sent.dispatchId());

        assertThat(run.outcome()).isEqualTo(JobRun.Outcome.FAILED);
        assertThat(run.failureReason()).isEqualTo("undeserializable_event");
        assertThat(fixture.status(sent.deliveryId())).isEqualTo(OutboxDeliveryStatus.failed);
    }

    @Test
    void refusesToBuildWithoutADatabaseOrAHandler() {
        assertThatThrownBy(() -> JobRunner.builder()
                        .handler("remind", InvoiceDue.class, (e, c) -> {})
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("dataSource or dsl");
        assertThatThrownBy(() -> JobRunner.builder().dataSource(db.dataSource()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("handler:");
        assertThatThrownBy(() -> runner().handler(" ", InvoiceDue.class, (e, c) -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jobType must not be blank");
    }
}
