package dev.outbox.worker.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.worker.QueueSettings;
import dev.outbox.worker.WorkerLoggers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One physical queue: a channel of its own with QoS {@code prefetch}, one consumer with manual
 * acknowledgements, a lookup thread and {@code concurrency} handler threads. The consumer thread only
 * queues what arrives; the lookup thread looks the deliveries up in groups ({@link #GAP_NANOS},
 * {@link #LINGER_NANOS}), at most {@code max(128, 4 × concurrency)} ahead of the handlers. A message
 * read more than {@link #FRESH_FOR_NANOS} ago is read again before its job starts, so that a
 * superseded dispatch never runs; while it waits, its start is renewed every
 * {@link #RENEW_AFTER_NANOS} ({@link MessageProcessor#renew}) so the relay does not time it out.
 * Acknowledgements are serialized on the channel.
 */
final class QueueConsumer {

    private static final Logger log = LoggerFactory.getLogger(WorkerLoggers.BROKER);

    static final int MAX_GROUP = 100;
    /**
     * How long a group of lookups waits for one more message after the last one came (0.5 ms): a burst
     * that the broker hands over message by message is read in one query, at the cost of this wait.
     */
    static final long GAP_NANOS = 500_000L;
    /** The longest a group of lookups waits for more messages after its first (2 ms). */
    static final long LINGER_NANOS = 2_000_000L;

    static final int MAX_AHEAD_MIN = 128;
    /** How old a lookup may be when its handler starts (1 s); older ones are read again. */
    static final long FRESH_FOR_NANOS = 1_000_000_000L;
    /** How old a waiting message's start may grow before it is renewed (1 s), checked every {@link #RENEW_CHECK_NANOS}. */
    static final long RENEW_AFTER_NANOS = 1_000_000_000L;

    static final long RENEW_CHECK_NANOS = 100_000_000L;
    /** How often a worker asks for a queue that does not exist yet: from 100 ms, doubling up to 1 s (one passive declaration a second). */
    static final long QUEUE_WAIT_FIRST_MILLIS = 100;

    static final long QUEUE_WAIT_MAX_MILLIS = 1_000;

    private final String queue;
    private final QueueSettings settings;
    private final MessageProcessor processor;
    private final ThreadPoolExecutor handlers;
    private final BlockingQueue<Incoming> incoming = new LinkedBlockingQueue<>();
    private final Semaphore ahead;
    private long renewCheckedAt = System.nanoTime();
    private final Thread lookups;
    private @Nullable Channel channel;
    private @Nullable ChannelAcks acks;
    private @Nullable String consumerTag;
    private volatile boolean stopping;
    private @Nullable Thread waiter;

    QueueConsumer(String queue, QueueSettings settings, MessageProcessor processor) {
        this.queue = queue;
        this.settings = settings;
        this.processor = processor;
        AtomicInteger n = new AtomicInteger();
        this.handlers = new ThreadPoolExecutor(
                settings.concurrency(),
                settings.concurrency(),
                0,
                TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "outbox-worker-" + queue + "-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        this.ahead = new Semaphore(Math.max(MAX_AHEAD_MIN, 4 * settings.concurrency()));
        this.lookups = new Thread(this::lookUp, "outbox-worker-" + queue + "-lookup");
        this.lookups.setDaemon(true);
    }

    @SuppressWarnings("ArrayRecordComponent") // a message as it came, never compared or hashed
    private record Incoming(byte[] body, Settlement settlement) {}

    /**
     * Starts consuming, or, when the queue does not exist yet, waits for it in the background: the
     * relay owns queue declaration (it declares the queues of its job routes, classic or quorum, and
     * publishes nothing before), so a worker started first never declares one of its own.
     */
    void start(Connection connection) throws Exception {
        if (exists(connection)) {
            consume(connection);
            return;
        }
        log.info(
                "queue {} does not exist yet: waiting for a relay to declare it (the relay declares the queues of its job routes)",
                queue);
        Thread t = new Thread(() -> awaitQueue(connection), "outbox-worker-" + queue + "-wait");
        t.setDaemon(true);
        waiter = t;
        t.start();
    }

    /** Asks for the queue with a capped backoff until it exists, then consumes it; returns when stopping. */
    private void awaitQueue(Connection connection) {
        long delayMillis = QUEUE_WAIT_FIRST_MILLIS;
        while (!stopping) {
            try {
                Thread.sleep(delayMillis);
            } catch (InterruptedException e) {
                return; // stopping
            }
            delayMillis = Math.min(delayMillis * 2, QUEUE_WAIT_MAX_MILLIS);
            try {
                if (exists(connection)) {
                    synchronized (this) {
                        if (stopping) {
                            return;
                        }
                        consume(connection);
                    }
                    log.info("queue {} declared: consuming it now", queue);
                    return;
                }
            } catch (Exception e) {
                // the connection is recovering: ask again after the next delay
                log.debug("waiting for queue {}: {}", queue, e.getClass().getName());
            }
        }
    }

    private void consume(Connection connection) throws Exception {
        Channel ch = open(connection);
        channel = ch;
        ChannelAcks channelAcks = new ChannelAcks(ch);
        acks = channelAcks;
        try {
            ch.basicQos(settings.prefetch());
            consumerTag = ch.basicConsume(queue, false, new DefaultConsumer(ch) {
                @Override
                public void handleDelivery(
                        String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                    channelAcks.received(envelope.getDeliveryTag());
                    accept(channelAcks, envelope.getDeliveryTag(), body);
                }

                @Override
                public void handleCancel(String tag) {
                    log.warn("the broker cancelled the consumer of queue {} (queue deleted?)", queue);
                }

                @Override
                public void handleShutdownSignal(String tag, ShutdownSignalException sig) {
                    if (!stopping) {
                        log.warn(
                                "consumer of queue {} stopped: channel or connection closed ({}{})",
                                queue,
                                sig.isHardError() ? "connection" : "channel",
                                closeReason(sig));
                    }
                }
            });
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch); // the next try opens a channel of its own
            throw e;
        }
        // started once, after the consume succeeded: a refused consume is tried again (awaitQueue) on a new channel
        lookups.start();
        log.info(
                "consuming queue {} with concurrency {} and prefetch {}",
                queue,
                settings.concurrency(),
                settings.prefetch());
    }

    private void closeQuietly(Channel ch) {
        if (ch.isOpen()) {
            try {
                ch.close();
            } catch (IOException | java.util.concurrent.TimeoutException | RuntimeException e) {
                log.debug(
                        "closing the channel of queue {} failed ({})",
                        queue,
                        e.getClass().getName());
            }
        }
    }

    /** The broker's reply code and text when it closed the channel or connection (", 406 PRECONDITION_FAILED - ..."), else "". */
    private static String closeReason(ShutdownSignalException sig) {
        if (sig.getReason() instanceof AMQP.Channel.Close close) {
            return ", " + close.getReplyCode() + " " + close.getReplyText();
        }
        if (sig.getReason() instanceof AMQP.Connection.Close close) {
            return ", " + close.getReplyCode() + " " + close.getReplyText();
        }
        return sig.isInitiatedByApplication() ? ", by this worker" : "";
    }

    /** Whether the queue exists: a passive declaration, on a channel of its own (a 404 closes it). */
    private boolean exists(Connection connection) throws IOException {
        Channel probe = open(connection);
        try {
            probe.queueDeclarePassive(queue);
        } catch (IOException e) {
            if (connection.isOpen()) {
                return false; // 404: no such queue yet; the broker closed the probe channel
            }
            throw e;
        }
        try {
            probe.close();
        } catch (IOException | java.util.concurrent.TimeoutException e) {
            log.debug(
                    "closing the probe channel of queue {} failed ({})",
                    queue,
                    e.getClass().getName());
        }
        return true;
    }

    private static Channel open(Connection connection) throws IOException {
        Channel ch = connection.createChannel();
        if (ch == null) {
            throw new IOException("no channel available on the AMQP connection");
        }
        return ch;
    }

    private void accept(ChannelAcks channelAcks, long deliveryTag, byte[] body) {
        if (!stopping) { // when stopping, left unacknowledged: closing the channel gives it back
            incoming.add(new Incoming(body, new Settlement(channelAcks, deliveryTag)));
        }
    }

    /**
     * The lookup thread: groups what has arrived and what arrives within {@link #GAP_NANOS} of the
     * message before ({@link Gathering}), one query per group, then hands each message to a handler thread.
     */
    private void lookUp() {
        List<Incoming> arrived = new ArrayList<>();
        List<MessageProcessor.Running> group = new ArrayList<>();
        Gathering.Room room = new Gathering.Room() {
            @Override
            public boolean reserve() {
                return ahead.tryAcquire();
            }

            @Override
            public void release() {
                ahead.release();
            }
        };
        try {
            while (!stopping) {
                Incoming first = incoming.poll(50, TimeUnit.MILLISECONDS);
                housekeeping();
                if (first == null) {
                    continue;
                }
                while (!ahead.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                    if (stopping) {
                        return; // first stays unacknowledged
                    }
                    housekeeping(); // the handlers are all busy: what waits for them is renewed meanwhile
                }
                arrived.add(first);
                Gathering.rest(incoming, arrived, MAX_GROUP, GAP_NANOS, LINGER_NANOS, room);
                for (Incoming in : arrived) {
                    accept(in, group);
                }
                arrived.clear();
                if (!group.isEmpty()) {
                    handOver(group);
                    group.clear();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            log.error(
                    "the lookup thread of queue {} stopped ({}); the worker no longer consumes this queue",
                    queue,
                    t.getClass().getName());
        }
    }

    private void housekeeping() {
        processor.flushLogIfDue();
        long now = System.nanoTime();
        if (now - renewCheckedAt < RENEW_CHECK_NANOS) {
            return;
        }
        renewCheckedAt = now;
        if (!(handlers.getQueue().peek() instanceof Take oldest) || now - oldest.readAt < RENEW_AFTER_NANOS) {
            return; // the oldest that waits (first in line) waited under a second, so did every other
        }
        List<Take> due = new ArrayList<>();
        for (Runnable queued : handlers.getQueue()) { // what no handler thread has taken yet
            if (queued instanceof Take take && take.run.startedHere && now - take.startedAt >= RENEW_AFTER_NANOS) {
                due.add(take);
            }
        }
        if (due.isEmpty()) {
            return;
        }
        Set<UUID> current = processor.renew(due.stream().map(t -> t.run).toList());
        for (Take take : due) {
            if (current.contains(take.run.dispatch.deliveryId())) {
                take.startedAt = now;
            } else {
                take.run.startedHere = false; // settled or sent again: its handler's lookup will drop it
            }
        }
    }

    private void accept(Incoming in, List<MessageProcessor.Running> group) {
        MessageProcessor.Running run = processor.accept(queue, in.body(), in.settlement());
        if (run == null) {
            ahead.release(); // settled already
        } else {
            group.add(run);
        }
    }

    private void handOver(List<MessageProcessor.Running> group) {
        long readAt = System.nanoTime();
        Map<UUID, DeliveryRow> rows = processor.lookup(group, false, () -> stopping);
        if (rows == null) {
            ahead.release(group.size()); // all rejected, or left unacknowledged as the worker stops
            return;
        }
        for (MessageProcessor.Running run : group) {
            try {
                handlers.execute(new Take(run, rows, readAt));
            } catch (RejectedExecutionException e) {
                processor.abandon(run); // shutting down: never started, the channel's close gives it back
                ahead.release();
            }
        }
    }

    /**
     * A looked-up message waiting in the handlers' queue until a handler thread takes it; while it
     * waits, {@link #housekeeping} renews its start ({@code startedAt}, nanoTime of the last one).
     */
    private final class Take implements Runnable {
        final MessageProcessor.Running run;
        final Map<UUID, DeliveryRow> rows;
        final long readAt;
        volatile long startedAt;

        Take(MessageProcessor.Running run, Map<UUID, DeliveryRow> rows, long readAt) {
            this.run = run;
            this.rows = rows;
            this.readAt = readAt;
            this.startedAt = readAt;
        }

        @Override
        public void run() {
            try {
                if (stopping) {
                    processor.abandon(run);
                } else {
                    Map<UUID, DeliveryRow> current = System.nanoTime() - readAt <= FRESH_FOR_NANOS
                            ? rows
                            // waited here: its job's time counts from now, not from the first read
                            : processor.lookup(
                                    List.of(run), true, () -> stopping); // null: rejected or left, see lookup
                    if (current != null) {
                        processor.run(queue, run, current.get(run.dispatch.deliveryId()));
                    }
                }
            } finally {
                ahead.release();
            }
        }
    }

    /** Stops taking messages; handlers already running go on; messages not yet started will not start. */
    void stopConsuming() {
        synchronized (this) {
            stopping = true;
        }
        Thread w = waiter;
        if (w != null) {
            w.interrupt();
        }
        if (lookups.isAlive()) {
            try {
                lookups.join(10_000); // it stops within 50 ms, or after the group it is handing over
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Channel ch = channel;
        ChannelAcks channelAcks = acks;
        String tag = consumerTag;
        if (ch != null && channelAcks != null && tag != null && ch.isOpen()) {
            try {
                channelAcks.exclusively(c -> c.basicCancel(tag));
            } catch (Exception e) {
                log.debug(
                        "cancel of the consumer of queue {} failed ({})",
                        queue,
                        e.getClass().getName());
            }
        }
        handlers.shutdown();
    }

    /** Waits until no handler of this queue runs, at most {@code nanos}; true when idle. */
    boolean awaitIdle(long nanos) throws InterruptedException {
        return handlers.awaitTermination(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    /** Interrupts handlers still running and closes the channel; unacknowledged messages go back to the broker. */
    void close() {
        handlers.shutdownNow();
        Channel ch = channel;
        ChannelAcks channelAcks = acks;
        if (ch != null && channelAcks != null && ch.isOpen()) {
            try {
                channelAcks.exclusively(Channel::close);
            } catch (Exception e) {
                log.debug(
                        "closing the channel of queue {} failed ({})",
                        queue,
                        e.getClass().getName());
            }
        }
    }
}
