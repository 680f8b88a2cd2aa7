package dev.outbox.faults;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Samples the run as it goes: the unrouted events and dispatched deliveries once a second (the peaks
 * are kept), completed deliveries and recorded events once a second (for the goodput), and the job
 * queue's ready messages every 250 ms through a passive declaration on a connection of its own. A
 * reading that fails (the database restarts, the broker is stopped) is skipped.
 */
final class Sampler {

    private static final long TICK_MILLIS = 250;

    final AtomicLong peakUnrouted = new AtomicLong();
    final AtomicLong peakDispatched = new AtomicLong();
    final AtomicLong peakReady = new AtomicLong(-1);
    private final List<Load.Sample> samples = new ArrayList<>();
    private final Counts counts;
    private final ConnectionFactory amqp;
    private final String queue;
    private final long startNanos;
    private final Thread thread;
    private volatile boolean running = true;
    private @Nullable Connection connection;

    /** {@code startNanos}: the {@link System#nanoTime()} the samples' seconds count from. */
    Sampler(Counts counts, String amqpUri, String queue, long startNanos) throws Exception {
        this.counts = counts;
        this.amqp = new ConnectionFactory();
        this.amqp.setUri(amqpUri);
        this.amqp.setAutomaticRecoveryEnabled(false);
        this.amqp.setConnectionTimeout(2_000);
        this.queue = queue;
        this.startNanos = startNanos;
        this.thread = new Thread(this::sample, "outbox-faults-sampler");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
        closeConnection();
    }

    /** Every sample so far, in time order. */
    synchronized List<Load.Sample> samples() {
        return List.copyOf(samples);
    }

    /** Seconds since {@code startNanos}. */
    double seconds(long nanos) {
        return (nanos - startNanos) / 1e9;
    }

    private void sample() {
        for (long tick = 0; running; tick++) {
            readReady();
            if (tick % (1_000 / TICK_MILLIS) == 0) {
                try {
                    peakUnrouted.accumulateAndGet(counts.unrouted(), Math::max);
                    peakDispatched.accumulateAndGet(counts.dispatched(), Math::max);
                    long completed = counts.completed();
                    long events = counts.events();
                    synchronized (this) {
                        samples.add(new Load.Sample(seconds(System.nanoTime()), completed, events));
                    }
                } catch (RuntimeException e) {
                    // the database is restarting
                }
            }
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void readReady() {
        try {
            if (connection == null || !connection.isOpen()) {
                closeConnection();
                connection = amqp.newConnection("outbox-faults-sampler");
            }
            try (Channel channel = connection.createChannel()) {
                peakReady.accumulateAndGet(channel.queueDeclarePassive(queue).getMessageCount(), Math::max);
            }
        } catch (Exception e) {
            closeConnection(); // stopped broker, queue not declared yet: read again next tick
        }
    }

    private void closeConnection() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.abort(1_000);
            } catch (RuntimeException e) {
                // already gone
            }
        }
    }
}
