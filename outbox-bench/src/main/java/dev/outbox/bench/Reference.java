package dev.outbox.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.MessageProperties;
import dev.outbox.api.IdGenerator;
import dev.outbox.delivery.internal.DeliveryMessage;
import dev.outbox.testing.TestPostgres;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The speed-of-light reference: the outbox's lifecycle written by hand in one JVM with plain JDBC and
 * amqp-client, on the same tables, in batches of {@value #BATCH}: one statement each to route and to
 * claim, persistent confirmed publishes ({@value #IN_FLIGHT} in flight), consumption with prefetch
 * {@value #PREFETCH}, and one guarded UPDATE per group of completions before one multiple ack.
 * Each stage is a thread of its own and wakes the next; every SQL text is constant with binds and
 * {@code plan_cache_mode = force_custom_plan}. docs/BENCHMARKS.md, "Reference pipeline", has the
 * statements and why it is a fair bar.
 */
final class Reference implements AutoCloseable {

    static final int BATCH = 500;
    static final int IN_FLIGHT = 2_000;
    static final int PREFETCH = 2_000;
    static final String JOB_TYPE = "bench-job";
    static final String EVENT_TYPE = "bench.event";

    private final TestPostgres pg;
    private final String events;
    private final String deliveries;
    private final String queue;
    private final Connection amqp;
    private final Signal routerWake = new Signal();
    private final Signal dispatcherWake = new Signal();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<java.sql.Connection> connections = new ArrayList<>();
    private volatile boolean stopping;

    private Reference(TestPostgres pg, String schema, String queue, Connection amqp) {
        this.pg = pg;
        this.events = schema + ".outbox_events";
        this.deliveries = schema + ".outbox_deliveries";
        this.queue = queue;
        this.amqp = amqp;
    }

    /** Declares {@code queue} and starts router, dispatcher and consumer on the tables of {@code schema}. */
    static Reference start(TestPostgres pg, ConnectionFactory factory, String schema, String queue) throws Exception {
        Reference ref = new Reference(pg, schema, queue, factory.newConnection("outbox-bench-reference"));
        try (Channel setup = ref.amqp.createChannel()) {
            setup.queueDeclare(queue, true, false, false, null);
        }
        ref.startConsumer();
        ref.startThread("reference-router", ref::route);
        ref.startThread("reference-dispatcher", ref::dispatch);
        return ref;
    }

    /** Deliveries completed so far. */
    long completed() {
        return completed.get();
    }

    /** Waits until {@code expected} deliveries are completed; throws when a stage failed or time ran out. */
    void awaitCompleted(long expected, java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (completed.get() < expected) {
            Throwable t = failure.get();
            if (t != null) {
                throw new IllegalStateException("the reference pipeline failed", t);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "reference: only " + completed.get() + " of " + expected + " completed within " + timeout);
            }
            Thread.sleep(20);
        }
    }

    /** The routing thread's wake-up: a producer calls it after its commit. */
    void recorded() {
        routerWake.raise();
    }

    // ---------------------------------------------------------------- stages

    private void route() throws Exception {
        java.sql.Connection c = connect();
        String sql = "WITH picked AS (SELECT id FROM " + events + " WHERE routed_at IS NULL ORDER BY id LIMIT " + BATCH
                + " FOR UPDATE SKIP LOCKED),"
                + " routed AS (UPDATE " + events + " e SET routed_at = greatest(now(), e.created_at) FROM picked"
                + " WHERE e.id = picked.id RETURNING e.id)"
                + " INSERT INTO " + deliveries + " (id, event_id, kind, job_type, queue_name, retry_delays_seconds,"
                + " delivery_timeout_seconds, status, attempts, available_at, created_at, updated_at)"
                + " SELECT gen_random_uuid(), routed.id, 'job', ?, ?, '{1,5,30}', 120, 'pending', 0, now(), now(), now() FROM routed";
        try (PreparedStatement st = c.prepareStatement(sql)) {
            st.setString(1, JOB_TYPE);
            st.setString(2, queue);
            while (!stopping) {
                int n = st.executeUpdate();
                if (n > 0) {
                    dispatcherWake.raise();
                }
                if (n < BATCH) {
                    routerWake.await(100);
                }
            }
        }
    }

    private void dispatch() throws Exception {
        java.sql.Connection c = connect();
        String sql = "UPDATE " + deliveries
                + " d SET status = 'dispatched', dispatch_id = gen_random_uuid(), attempts = d.attempts + 1,"
                + " dispatched_at = now(), delivery_timeout_at = now() + d.delivery_timeout_seconds * interval '1 second', updated_at = now()"
                + " WHERE d.id = ANY(ARRAY(SELECT id FROM " + deliveries
                + " WHERE status = 'pending' AND available_at <= now()"
                + " ORDER BY available_at LIMIT " + BATCH + " FOR UPDATE SKIP LOCKED)) AND d.status = 'pending'"
                + " RETURNING d.id, d.event_id, d.dispatch_id, d.attempts, cardinality(d.retry_delays_seconds)";
        Channel ch = amqp.createChannel();
        ConfirmWindow window = new ConfirmWindow(ch, IN_FLIGHT);
        AMQP.BasicProperties props = MessageProperties.PERSISTENT_BASIC
                .builder()
                .contentType(DeliveryMessage.CONTENT_TYPE)
                .build();
        try (PreparedStatement st = c.prepareStatement(sql)) {
            while (!stopping) {
                int n = 0;
                try (ResultSet rs = st.executeQuery()) {
                    while (rs.next()) {
                        int attempt = rs.getInt(4);
                        byte[] body = new DeliveryMessage(
                                        rs.getObject(2, UUID.class),
                                        rs.getObject(1, UUID.class),
                                        rs.getObject(3, UUID.class),
                                        EVENT_TYPE,
                                        JOB_TYPE,
                                        attempt,
                                        attempt > rs.getInt(5),
                                        null,
                                        null)
                                .toJson();
                        window.publishing();
                        ch.basicPublish("", queue, props, body);
                        n++;
                    }
                }
                if (window.nacks() > 0) {
                    throw new IllegalStateException("the broker nacked " + window.nacks() + " publishes");
                }
                if (n < BATCH) {
                    dispatcherWake.await(100);
                }
            }
        }
    }

    @SuppressWarnings("ArrayRecordComponent") // a message as it came, never compared or hashed
    private record Arrived(long tag, byte[] body) {}

    private void startConsumer() throws Exception {
        BlockingQueue<Arrived> arrived = new LinkedBlockingQueue<>();
        Channel ch = amqp.createChannel();
        ch.basicQos(PREFETCH);
        ch.basicConsume(queue, false, new DefaultConsumer(ch) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                arrived.add(new Arrived(envelope.getDeliveryTag(), body));
            }
        });
        startThread("reference-completer", () -> complete(ch, arrived));
    }

    /** Takes what has arrived (up to 500), completes it in one guarded UPDATE, commits, then acks it with one multiple ack. */
    private void complete(Channel ch, BlockingQueue<Arrived> arrived) throws Exception {
        java.sql.Connection c = connect();
        String sql = "UPDATE " + deliveries
                + " SET status = 'completed', completed_at = now(), delivery_timeout_at = NULL, updated_at = now()"
                + " WHERE status = 'dispatched' AND id = ANY(?) AND dispatch_id = ANY(?)";
        List<Arrived> group = new ArrayList<>(BATCH);
        try (PreparedStatement st = c.prepareStatement(sql)) {
            while (!stopping) {
                Arrived first = arrived.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                group.add(first);
                arrived.drainTo(group, BATCH - 1);
                UUID[] ids = new UUID[group.size()];
                UUID[] dispatchIds = new UUID[group.size()];
                for (int i = 0; i < ids.length; i++) {
                    DeliveryMessage m = DeliveryMessage.fromJson(group.get(i).body());
                    ids[i] = m.deliveryId();
                    dispatchIds[i] = m.dispatchId();
                }
                st.setArray(1, c.createArrayOf("uuid", ids));
                st.setArray(2, c.createArrayOf("uuid", dispatchIds));
                int n = st.executeUpdate(); // auto-commit: committed before the ack
                ch.basicAck(group.get(group.size() - 1).tag(), true);
                completed.addAndGet(n);
                group.clear();
            }
        }
    }

    // ---------------------------------------------------------------- producers

    /**
     * {@code threads} producers for {@code seconds}, each inserting one event per transaction (auto-commit)
     * with plain JDBC and no NOTIFY, the row {@code Outbox.record} writes; each insert wakes {@code reference}
     * when there is one. Returns how many were recorded.
     */
    static long produce(TestPostgres pg, String schema, int threads, int seconds, Reference reference)
            throws Exception {
        return produce(pg, schema, threads, seconds, reference, false);
    }

    /**
     * With {@code explicitTransactions}, each insert runs in a transaction of its own begun and committed
     * by the producer ({@code setAutoCommit(false)}, the insert, {@code commit()}), as a business
     * transaction that records an event does; else in auto-commit mode, one round trip per event.
     */
    static long produce(
            TestPostgres pg, String schema, int threads, int seconds, Reference reference, boolean explicitTransactions)
            throws Exception {
        ObjectMapper json = new ObjectMapper();
        IdGenerator ids = IdGenerator.uuidV7();
        AtomicLong recorded = new AtomicLong();
        long end = System.nanoTime() + java.time.Duration.ofSeconds(seconds).toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                try (java.sql.Connection c = pg.connect();
                        PreparedStatement st = c.prepareStatement("INSERT INTO " + schema
                                + ".outbox_events (id, event_type, payload, created_at) VALUES (?, ?, ?::jsonb, ?)")) {
                    c.setAutoCommit(!explicitTransactions);
                    long seq = thread;
                    while (System.nanoTime() < end) {
                        BenchEvent event = BenchEvent.next(seq);
                        st.setObject(1, ids.next());
                        st.setString(2, EVENT_TYPE);
                        st.setString(3, json.writeValueAsString(event));
                        st.setObject(4, OffsetDateTime.now(ZoneOffset.UTC));
                        st.executeUpdate();
                        if (explicitTransactions) {
                            c.commit();
                        }
                        if (reference != null) {
                            reference.recorded();
                        }
                        seq += threads;
                        recorded.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        return recorded.get();
    }

    // ---------------------------------------------------------------- plumbing

    private java.sql.Connection connect() throws SQLException {
        java.sql.Connection c = pg.connect();
        try (Statement s = c.createStatement()) {
            s.execute("SET plan_cache_mode = force_custom_plan");
        }
        synchronized (connections) {
            connections.add(c);
        }
        return c;
    }

    @FunctionalInterface
    private interface Stage {
        void run() throws Exception;
    }

    private void startThread(String name, Stage stage) {
        Thread t = new Thread(
                () -> {
                    try {
                        stage.run();
                    } catch (Throwable e) {
                        if (!stopping) {
                            failure.compareAndSet(null, e);
                        }
                    }
                },
                name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    @Override
    public void close() throws Exception {
        stopping = true;
        routerWake.raise();
        dispatcherWake.raise();
        for (Thread t : threads) {
            t.join(10_000);
        }
        synchronized (connections) {
            for (java.sql.Connection c : connections) {
                c.close();
            }
        }
        try (Channel ch = amqp.createChannel()) {
            ch.queueDelete(queue);
        } catch (IOException e) {
            // the queue is gone already
        }
        amqp.close();
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("the reference pipeline failed", t);
        }
    }

    /** A wake-up that is never lost: raised before the waiter waits, the wait returns at once. */
    static final class Signal {
        private final Semaphore permits = new Semaphore(0);

        void raise() {
            if (permits.availablePermits() == 0) {
                permits.release();
            }
        }

        void await(long millis) throws InterruptedException {
            permits.tryAcquire(millis, TimeUnit.MILLISECONDS);
            permits.drainPermits();
        }
    }
}
