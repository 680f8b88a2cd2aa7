package dev.outbox.worker;

/**
 * The SLF4J logger names the worker logs under: stable across releases (unlike its classes' names),
 * so set levels on these. All sit under {@value #ALL}, which tunes them together.
 *
 * <pre>{@code
 * <!-- logback.xml: keep the job outcomes, quiet the consumer's start-up lines -->
 * <logger name="dev.outbox.worker.broker" level="WARN"/>
 * }</pre>
 */
public final class WorkerLoggers {

    /** The parent of every worker logger. */
    public static final String ALL = "dev.outbox.worker";

    /**
     * Job outcomes, one record per delivery: a scheduled retry (WARN), a final failure and a worker
     * death (ERROR), a completion or message that found its dispatch superseded, a message dropped or
     * refused (unknown delivery, no handler, unreadable event or body: WARN), and database errors
     * while reading or writing deliveries (ERROR). Each carries MDC {@code outboxEventId} and
     * {@code outboxDeliveryId}.
     */
    public static final String JOBS = "dev.outbox.worker.jobs";

    /** The broker side: consuming a queue (INFO), a cancelled consumer, a closed channel, a failed ack (WARN). */
    public static final String BROKER = "dev.outbox.worker.broker";

    /** The worker's life: closed, closed by the JVM's shutdown hook (INFO), deliveries it could not mark worker_died (ERROR). */
    public static final String LIFECYCLE = "dev.outbox.worker.OutboxWorker";

    private WorkerLoggers() {}
}
