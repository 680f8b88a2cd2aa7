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
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One physical queue: a channel of its own with QoS {@code prefetch}, one consumer with manual
 * acknowledgements, a lookup thread and {@code concurrency} handler threads. The consumer thread only
 * queues what arrives; the lookup thread reads the messages and looks their deliveries up in groups
 * (one query for all that arrived meanwhile), at most {@code max(32, 4 × concurrency)} ahead of the
 * handlers; handler threads run the jobs and write the outcomes. A handler starts on what was read at
 * most {@link #FRESH_FOR_NANOS} ago: a message that waited longer for a handler thread has its delivery
 * read again first, so that a dispatch superseded meanwhile (timed out and sent again) never runs its job.
 * Acknowledgements are serialized on the channel.
 */
final class QueueConsumer {

    private static final Logger log = LoggerFactory.getLogger(WorkerLoggers.BROKER);

    static final int MAX_GROUP = 100;
    static final int MAX_AHEAD_MIN = 32;
    /** How old a lookup may be when its handler starts (1 s); older ones are read again. */
    static final long FRESH_FOR_NANOS = 1_000_000_000L;

    private final String queue;
    private final QueueSettings settings;
    private final boolean declare;
    private final MessageProcessor processor;
    private final ThreadPoolExecutor handlers;
    private final BlockingQueue<Incoming> incoming = new LinkedBlockingQueue<>();
    private final Semaphore ahead;
    private final Thread lookups;
    private @Nullable Channel channel;
    private @Nullable ChannelAcks acks;
    private @Nullable String consumerTag;
    private volatile boolean stopping;

    QueueConsumer(String queue, QueueSettings settings, boolean declare, MessageProcessor processor) {
        this.queue = queue;
        this.settings = settings;
        this.declare = declare;
        this.processor = processor;
        AtomicInteger n = new AtomicInteger();
        this.handlers = new ThreadPoolExecutor(settings.concurrency(), settings.concurrency(), 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "outbox-worker-" + queue + "-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        this.ahead = new Semaphore(Math.max(MAX_AHEAD_MIN, 4 * settings.concurrency()));
        this.lookups = new Thread(this::lookUp, "outbox-worker-" + queue + "-lookup");
        this.lookups.setDaemon(true);
    }

    private record Incoming(byte[] body, Settlement settlement) {}

    void start(Connection connection) throws Exception {
        if (declare) {
            declare(connection);
        }
        Channel ch = open(connection);
        channel = ch;
        ChannelAcks channelAcks = new ChannelAcks(ch);
        acks = channelAcks;
        lookups.start();
        ch.basicQos(settings.prefetch());
        consumerTag = ch.basicConsume(queue, false, new DefaultConsumer(ch) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
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
                    log.warn("consumer of queue {} stopped: channel or connection closed ({})", queue,
                            sig.isHardError() ? "connection" : "channel");
                }
            }
        });
        log.info("consuming queue {} with concurrency {} and prefetch {}", queue, settings.concurrency(), settings.prefetch());
    }

    /**
     * Declares the queue (durable, classic, no arguments) unless it exists: an existing queue is used as
     * it is, whatever its arguments (a relay may have declared it as a quorum queue).
     */
    private void declare(Connection connection) throws Exception {
        Channel probe = open(connection);
        try {
            probe.queueDeclarePassive(queue);
            probe.close();
            return;
        } catch (IOException e) {
            // 404: no such queue yet; the broker closed the probe channel
        }
        Channel ch = open(connection);
        ch.queueDeclare(queue, true, false, false, null);
        ch.close();
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

    /** The lookup thread: groups what has arrived, one query per group, then hands each message to a handler thread. */
    private void lookUp() {
        List<MessageProcessor.Running> group = new ArrayList<>();
        try {
            while (!stopping) {
                Incoming first = incoming.poll(50, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                while (!ahead.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                    if (stopping) {
                        return; // first stays unacknowledged
                    }
                }
                accept(first, group);
                while (group.size() < MAX_GROUP && ahead.tryAcquire()) {
                    Incoming next = incoming.poll();
                    if (next == null) {
                        ahead.release();
                        break;
                    }
                    accept(next, group);
                }
                if (!group.isEmpty()) {
                    handOver(group);
                    group.clear();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            log.error("the lookup thread of queue {} stopped ({}); the worker no longer consumes this queue", queue, t.getClass().getName());
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
        Map<UUID, DeliveryRow> rows = processor.lookup(group);
        if (rows == null) {
            ahead.release(group.size()); // all rejected
            return;
        }
        for (MessageProcessor.Running run : group) {
            try {
                handlers.execute(() -> {
                    try {
                        if (stopping) {
                            processor.abandon(run);
                        } else {
                            Map<UUID, DeliveryRow> current = System.nanoTime() - readAt <= FRESH_FOR_NANOS ? rows
                                    : processor.lookup(List.of(run)); // null: rejected, the database failed
                            if (current != null) {
                                processor.run(queue, run, current.get(run.dispatch.deliveryId()));
                            }
                        }
                    } finally {
                        ahead.release();
                    }
                });
            } catch (RejectedExecutionException e) {
                processor.abandon(run); // shutting down: never started, the channel's close gives it back
                ahead.release();
            }
        }
    }

    /** Stops taking messages; handlers already running go on; messages not yet started will not start. */
    void stopConsuming() {
        stopping = true;
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
                log.debug("cancel of the consumer of queue {} failed ({})", queue, e.getClass().getName());
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
                log.debug("closing the channel of queue {} failed ({})", queue, e.getClass().getName());
            }
        }
    }
}
