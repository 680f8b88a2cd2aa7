package dev.outbox.relay;

import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The relay tests' shared set-up, beside the worker's {@code WorkerFixture}: a migrated schema and a
 * broker of the class's own (it owns the two extensions, so their order is its own), a consumer
 * connection ({@link #broker()}), empty tables before each test ({@link #tables()}), a relay builder
 * on this schema and broker ({@link #relay(Clock)}), and after each test the relays it was given
 * closed and the queues it handed out emptied.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RelayFixture fixture = new RelayFixture();
 *
 * relay = fixture.closeAfterEach(fixture.relay(clock).routes(routes).build());
 * }</pre>
 */
public final class RelayFixture implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    /** The class's schema. */
    public final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();
    /** The class's broker resources. */
    public final RabbitExtension rabbit = new RabbitExtension();

    private final List<String> purged = new ArrayList<>();
    private final Deque<AutoCloseable> closed = new ArrayDeque<>();
    private @Nullable Broker broker;
    private @Nullable Tables tables;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        db.beforeAll(context);
        rabbit.beforeAll(context);
        broker = new Broker(rabbit);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        db.truncate();
        tables = new Tables(db);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Exception failure = null;
        while (!closed.isEmpty()) {
            try {
                closed.pop().close();
            } catch (Exception e) {
                failure = add(failure, e);
            }
        }
        for (String queue : purged) {
            try {
                broker().purge(queue);
            } catch (Exception e) {
                failure = add(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        try {
            if (broker != null) {
                broker.close();
            }
        } finally {
            try {
                rabbit.afterAll(context);
            } finally {
                db.afterAll(context);
            }
        }
    }

    /** A plain consumer connection to the broker, for the class. */
    public Broker broker() {
        if (broker == null) {
            throw new IllegalStateException("the broker connection exists only between beforeAll and afterAll");
        }
        return broker;
    }

    /** The outbox tables of the class's schema, emptied before each test. */
    public Tables tables() {
        if (tables == null) {
            throw new IllegalStateException("the tables are ready only from beforeEach on");
        }
        return tables;
    }

    /** A queue name unique to the class ({@link RabbitExtension#queue}), emptied after each test. */
    public String queue(String name) {
        String queue = rabbit.queue(name);
        purged.add(queue);
        return queue;
    }

    /** A relay builder on the class's schema and broker with {@code clock}; routes and the rest are the test's. */
    public OutboxRelay.Builder relay(Clock clock) {
        return relay().clock(clock);
    }

    /** A relay builder on the class's schema and broker with the system clock. */
    public OutboxRelay.Builder relay() {
        return OutboxRelay.builder()
                .dataSource(db.dataSource())
                .connectionFactory(rabbit.connectionFactory())
                .tables(db.tables());
    }

    /** Closes {@code resource} after the test (the last one given first), before the queues are emptied. */
    public <T extends AutoCloseable> T closeAfterEach(T resource) {
        closed.push(resource);
        return resource;
    }

    private static Exception add(@Nullable Exception failure, Exception e) {
        if (failure == null) {
            return e;
        }
        failure.addSuppressed(e);
        return failure;
    }
}
