package dev.outbox.relay;

/**
 * The SLF4J logger names the relay logs under: stable across releases (unlike its classes' names),
 * so set levels on these. All sit under {@value #ALL}, which tunes them together.
 *
 * <pre>{@code
 * # slf4j-simple, e.g. the service jar: java -Dorg.slf4j.simpleLogger.log.dev.outbox.relay.broker=warn -jar outbox-relay.jar ...
 * }</pre>
 */
public final class RelayLoggers {

    /** The parent of every relay logger. */
    public static final String ALL = "dev.outbox.relay";

    /**
     * Passes and deliveries: an event type without a route (WARN, at most every 10 minutes per type),
     * a scheduled retry of a refused publish or a timed-out dispatch (WARN), a final failure (ERROR,
     * with MDC {@code outboxEventId} and {@code outboxDeliveryId}), an outage of the database or the
     * broker and its recovery, the end of a loop, and each pass's counts at DEBUG.
     */
    public static final String RELAY = "dev.outbox.relay.OutboxRelay";

    /** The broker connection (INFO when connected), queues that cannot be declared and exchanges that do not exist (ERROR). */
    public static final String BROKER = "dev.outbox.relay.broker";

    /** The LISTEN connection for the recording API's NOTIFY: listening (INFO), lost or refused, polling meanwhile (WARN). */
    public static final String WAKEUPS = "dev.outbox.relay.wakeups";

    /** The relay service ({@code outbox-relay.jar}): each pass's counts (INFO), signals and its stop. */
    public static final String SERVICE = "dev.outbox.relay.service";

    private RelayLoggers() {}
}
