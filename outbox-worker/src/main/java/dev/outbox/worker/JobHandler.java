package dev.outbox.worker;

/**
 * Runs one job for one event. Returning normally completes the delivery; throwing
 * {@link RetryableOutboxException} asks for a retry with the delivery's next delay (or fails it
 * {@code retries_exhausted} when it has none left); any other exception fails it ({@code job_failed})
 * at once. The outbox delivers at least once: a handler must tolerate running twice for one event.
 *
 * <pre>{@code
 * JobHandler<OrderPlaced> sendConfirmation = (event, context) -> mailer.send(event.email());
 * }</pre>
 *
 * @param <T> the event class the handler is registered with
 */
@FunctionalInterface
public interface JobHandler<T> {

    void handle(T event, JobContext context) throws Exception;
}
