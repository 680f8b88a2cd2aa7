package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.relay.OutboxRelay;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs an {@link OutboxRelay}'s loop with the application context and stops it with it, in
 * {@link #PHASE} as the worker: it starts once the context, the outbox migrations and the
 * {@code DataSource} are ready, and its stop ({@link OutboxRelay#close()}: the current pass finishes,
 * its publishes confirmed or refused, then the connections close) ends before the {@code DataSource}
 * closes. A relay is started once: a context stopped and started again does not restart it.
 */
public final class OutboxRelayLifecycle extends ContextLifecycle {

    private final OutboxRelay relay;

    /** Starts and stops {@code relay}; with the context when {@code autoStartup}. */
    public OutboxRelayLifecycle(OutboxRelay relay, boolean autoStartup) {
        super(autoStartup, "outbox-relay-stop");
        this.relay = Objects.requireNonNull(relay, "relay");
    }

    /** Why the relay's loop ended on its own (a database that fails for good), if it did: see {@link OutboxRelay#failure()}. */
    public Optional<RuntimeException> failure() {
        return relay.failure();
    }

    /** Starts the loop in its background thread; see {@link OutboxRelay#start()}. */
    @Override
    void open() {
        relay.start();
    }

    @Override
    void close() {
        relay.close();
    }
}
