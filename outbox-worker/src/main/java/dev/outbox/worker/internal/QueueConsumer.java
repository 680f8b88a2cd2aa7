package dev.outbox.worker.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.worker.QueueSettings;
import java.io.IOException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One physical queue: a channel of its own with QoS {@code prefetch}, one consumer with manual
 * acknowledgements, and {@code concurrency} handler threads. The consumer thread only hands messages
 * to the handler threads; outcomes are acknowledged from there, serialized on the channel.
 */
final class QueueConsumer {

    private static final Logger log = LoggerFactory.getLogger(QueueConsumer.class);

    private final String queue;
    private final QueueSettings settings;
    private final boolean declare;
    private final MessageProcessor processor;
    private final ThreadPoolExecutor handlers;
    private @Nullable Channel channel;
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
    }

    void start(Connection connection) throws Exception {
        if (declare) {
            declare(connection);
        }
        Channel ch = open(connection);
        channel = ch;
        ch.basicQos(settings.prefetch());
        consumerTag = ch.basicConsume(queue, false, new DefaultConsumer(ch) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                accept(ch, envelope.getDeliveryTag(), body);
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

    private void accept(Channel ch, long deliveryTag, byte[] body) {
        if (stopping) {
            return; // left unacknowledged: closing the channel gives it back untouched
        }
        Settlement settlement = new Settlement(ch, deliveryTag);
        try {
            handlers.execute(() -> {
                if (!stopping) {
                    processor.process(queue, body, settlement);
                }
            });
        } catch (RejectedExecutionException e) {
            // shutting down: the message was never handled; the channel's close gives it back
        }
    }

    /** Stops taking messages; handlers already running go on; messages not yet started will not start. */
    void stopConsuming() {
        stopping = true;
        Channel ch = channel;
        String tag = consumerTag;
        if (ch != null && tag != null && ch.isOpen()) {
            try {
                synchronized (ch) {
                    ch.basicCancel(tag);
                }
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
        if (ch != null && ch.isOpen()) {
            try {
                synchronized (ch) {
                    ch.close();
                }
            } catch (Exception e) {
                log.debug("closing the channel of queue {} failed ({})", queue, e.getClass().getName());
            }
        }
    }
}
