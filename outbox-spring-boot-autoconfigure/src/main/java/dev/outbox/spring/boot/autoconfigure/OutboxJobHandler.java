package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.delivery.LogText;
import dev.outbox.delivery.amqp.AmqpNames;
import dev.outbox.worker.JobHandler;
import java.util.Objects;

/**
 * A job handler as a bean: the worker of the auto-configuration runs {@code handler} for the messages
 * of {@code jobType} that it reads from {@code queue}, with the event read as {@code eventClass}.
 *
 * <pre>{@code
 * @Bean
 * OutboxJobHandler<OrderPlaced> sendConfirmation(Mailer mailer) {
 *     return OutboxJobHandler.of("send-confirmation", OrderPlaced.class, "emails",
 *             (event, context) -> mailer.send(event.email()));
 * }
 * }</pre>
 *
 * <p>The job type is the name the routes give the job, written out: it is stored in every delivery,
 * so it must outlive renames of the handler's class or bean, and it is never derived from them. Two
 * handler beans for one job type fail the start, naming both beans.
 *
 * @param jobType the job type of the routes, e.g. {@code send-confirmation}
 * @param eventClass the class the event is read as
 * @param queue the queue the routes send this job to; the worker consumes every queue a handler names
 * @param handler runs the job; see {@link JobHandler} for what its outcomes mean
 * @param <T> the event class
 */
public record OutboxJobHandler<T>(String jobType, Class<T> eventClass, String queue, JobHandler<T> handler) {

    public OutboxJobHandler {
        Objects.requireNonNull(jobType, "jobType");
        Objects.requireNonNull(eventClass, "eventClass");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(handler, "handler");
        if (jobType.isBlank()) {
            throw new IllegalArgumentException("OutboxJobHandler.jobType must not be blank");
        }
        String problem = queue.isBlank() ? "must be a non-blank name" : AmqpNames.queueProblem(queue);
        if (problem != null) {
            throw new IllegalArgumentException("OutboxJobHandler.queue '" + LogText.of(queue) + "' " + problem);
        }
    }

    /** The handler of {@code jobType}'s messages on {@code queue}, events read as {@code eventClass}. */
    public static <T> OutboxJobHandler<T> of(String jobType, Class<T> eventClass, String queue, JobHandler<T> handler) {
        return new OutboxJobHandler<>(jobType, eventClass, queue, handler);
    }
}
