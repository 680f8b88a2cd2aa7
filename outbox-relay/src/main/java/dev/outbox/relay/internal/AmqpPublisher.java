package dev.outbox.relay.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.amqp.AmqpFactories;
import dev.outbox.delivery.internal.Claimed;
import dev.outbox.delivery.internal.DeliveryMessage;
import dev.outbox.delivery.internal.RetryPolicy;
import dev.outbox.delivery.internal.TlsRefusal;
import dev.outbox.relay.BrokerUnavailableException;
import dev.outbox.relay.QueueType;
import dev.outbox.relay.RelayException;
import dev.outbox.relay.RelayLoggers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes dispatches on one confirming channel with many messages in flight, {@code mandatory}
 * set. Declares the queues of job deliveries (once per queue and connection, again after a return)
 * and checks that the exchanges of publish deliveries exist before it publishes to them, so that one
 * missing exchange does not close the channel under the rest of the batch. Reconnects when the
 * connection was lost. Used by one thread.
 */
final class AmqpPublisher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RelayLoggers.BROKER);
    /** How long an exchange found to exist is trusted without asking the broker again. */
    private static final long EXCHANGE_CHECK_NANOS = Duration.ofSeconds(5).toNanos();
    /** How long a queue that could not be declared fails its dispatches at once before it is declared again. */
    static final Duration QUEUE_RETRY = Duration.ofSeconds(30);

    private final ConnectionFactory factory;
    private final QueueType queueType;
    private final int window;
    private final long confirmTimeoutMillis;
    private final Clock clock;
    private final Set<String> declaredQueues = new HashSet<>();
    /** Queues whose declaration failed, with the instant after which they are declared again. */
    private final Map<String, Instant> brokenQueues = new HashMap<>();

    private final Map<String, Long> checkedExchanges = new HashMap<>();
    private @Nullable Connection connection;
    private @Nullable Channel channel;
    private @Nullable Confirms confirms;
    private @Nullable Channel control;

    AmqpPublisher(ConnectionFactory factory, QueueType queueType, int window, Duration confirmTimeout, Clock clock) {
        this.clock = clock;
        this.factory = AmqpFactories.quiet(factory).clone();
        this.factory.setAutomaticRecoveryEnabled(false); // the relay reconnects itself, between batches
        this.queueType = queueType;
        this.window = window;
        this.confirmTimeoutMillis = confirmTimeout.toMillis();
    }

    long confirmTimeoutMillis() {
        return confirmTimeoutMillis;
    }

    /**
     * Opens the connection and the confirming channel when they are not open.
     *
     * @throws BrokerUnavailableException when the broker cannot be reached
     */
    void ensureOpen() {
        try {
            Connection c = connection;
            if (c == null || !c.isOpen()) {
                closeQuietly();
                c = factory.newConnection("outbox-relay");
                connection = c;
                declaredQueues.clear();
                checkedExchanges.clear();
                log.info("connected to the broker");
            }
            Channel ch = channel;
            if (ch == null || !ch.isOpen()) {
                ch = c.createChannel();
                ch.confirmSelect();
                Confirms tracker = new Confirms(window);
                ch.addConfirmListener(tracker);
                ch.addReturnListener(tracker);
                ch.addShutdownListener(tracker);
                channel = ch;
                confirms = tracker;
            }
        } catch (IOException | TimeoutException | ShutdownSignalException e) {
            closeQuietly();
            TlsRefusal tls = TlsRefusal.of(e);
            if (tls != null) {
                // a certificate refused stays refused: not an outage for the loop to wait out
                throw new RelayException(
                        "broker unreachable (" + e.getClass().getSimpleName() + "): TLS: " + tls.text()
                                + "; check the trust store of the connection factory and the host of the AMQP URI",
                        e);
            }
            throw new BrokerUnavailableException(
                    "broker unreachable (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    /** Declares the queue of every job route now, so that consumers find them before the first message. */
    void declareQueues(Set<String> queues) {
        ensureOpen();
        for (String queue : queues) {
            declare(queue);
        }
    }

    /**
     * Publishes every dispatch; each {@link Published} settles on its confirm, nack, return or the
     * loss of the channel. A dispatch that cannot be sent is settled as failed at once.
     */
    List<Published> publish(List<Claimed> dispatches) {
        ensureOpen();
        Map<String, Boolean> destinations = new LinkedHashMap<>();
        for (Claimed d : dispatches) {
            if (d.kind() == RouteKind.JOB) {
                destinations.computeIfAbsent("q:" + d.queue(), k -> declare(d.queue()));
            } else {
                String exchange = d.exchange() == null ? "" : d.exchange();
                destinations.computeIfAbsent("x:" + exchange, k -> exchangeExists(exchange));
            }
        }
        List<Published> result = new ArrayList<>(dispatches.size());
        boolean lost = connection == null || !connection.isOpen(); // a failed check may be the loss of the connection
        for (Claimed d : dispatches) {
            if (d.kind() == RouteKind.JOB && !Boolean.TRUE.equals(destinations.get("q:" + d.queue()))) {
                result.add(Published.failed(d, lost ? Published.NOT_SENT : Published.QUEUE_DECLARE_FAILED));
            } else if (d.kind() == RouteKind.PUBLISH
                    && !Boolean.TRUE.equals(destinations.get("x:" + (d.exchange() == null ? "" : d.exchange())))) {
                result.add(Published.failed(d, lost ? Published.NOT_SENT : Published.NO_EXCHANGE));
            } else {
                result.add(publishOne(d));
            }
        }
        return result;
    }

    /** Forgets that {@code queue} was declared, so that the next dispatch to it declares it again. */
    void forgetQueue(String queue) {
        declaredQueues.remove(queue);
    }

    private Published publishOne(Claimed d) {
        Published published = new Published(d);
        Channel ch;
        Confirms tracker;
        try {
            ensureOpen();
            ch = channel;
            tracker = confirms;
        } catch (BrokerUnavailableException e) {
            published.settle(Published.NOT_SENT);
            return published;
        }
        if (ch == null || tracker == null) {
            published.settle(Published.NOT_SENT);
            return published;
        }
        try {
            if (!tracker.reserve(confirmTimeoutMillis)) {
                published.settle(ch.isOpen() ? Published.NO_WINDOW : Published.NOT_SENT);
                return published;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            published.settle(Published.PUBLISH_ERROR);
            return published;
        }
        long seq = ch.getNextPublishSeqNo();
        tracker.track(seq, published);
        try {
            if (d.kind() == RouteKind.JOB) {
                DeliveryMessage message = new DeliveryMessage(
                        d.eventId(),
                        d.deliveryId(),
                        d.dispatchId(),
                        d.eventType(),
                        d.jobType(),
                        d.attempt(),
                        RetryPolicy.lastAttempt(d.attempt(), d.retries()),
                        d.traceparent(),
                        d.tracestate());
                ch.basicPublish(
                        "", d.queue(), true, expiring(message.properties(), d.timeoutSeconds()), message.toJson());
            } else {
                Map<String, Object> headers = new LinkedHashMap<>();
                headers.put(DeliveryMessage.HEADER_EVENT_ID, d.eventId().toString());
                headers.put(DeliveryMessage.HEADER_EVENT_TYPE, d.eventType());
                headers.put(DeliveryMessage.HEADER_DISPATCH_ID, d.dispatchId().toString());
                if (d.traceparent() != null) {
                    headers.put(DeliveryMessage.HEADER_TRACEPARENT, d.traceparent());
                }
                if (d.tracestate() != null) {
                    headers.put(DeliveryMessage.HEADER_TRACESTATE, d.tracestate());
                }
                AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                        .deliveryMode(2)
                        .messageId(d.eventId().toString())
                        .type(d.eventType())
                        .contentType(DeliveryMessage.CONTENT_TYPE)
                        .headers(headers)
                        .build();
                String payload = d.payload() == null ? "null" : d.payload();
                ch.basicPublish(
                        d.exchange() == null ? "" : d.exchange(),
                        d.routingKey() == null ? "" : d.routingKey(),
                        true,
                        props,
                        payload.getBytes(StandardCharsets.UTF_8));
            }
        } catch (AlreadyClosedException e) {
            tracker.notSent(seq); // the channel was closed before the frame was written
        } catch (IOException e) {
            tracker.failed(seq);
        }
        return published;
    }

    /**
     * The properties of a job message with an expiration of the delivery's timeout: a message that
     * waited in its queue that long belongs to a dispatch that T4 has taken back or is about to, so the
     * broker drops it at the head of the queue instead of handing it to a worker that would only find
     * its dispatch superseded. RabbitMQ honours a message's expiration in classic and quorum queues
     * (since 3.10) alike; it never applies to a message a consumer holds unacknowledged.
     */
    static AMQP.BasicProperties expiring(AMQP.BasicProperties properties, int timeoutSeconds) {
        return properties
                .builder()
                .expiration(Long.toString(timeoutSeconds * 1000L))
                .build();
    }

    /**
     * The number of ready messages in {@code queue} (a passive declaration on the control channel);
     * empty when the broker cannot say (no connection, no such queue). Only reads: a queue deleted
     * under the relay is found by the return of its next publish, as before.
     */
    java.util.OptionalLong readyMessages(String queue) {
        Connection c = connection;
        if (c == null || !c.isOpen()) {
            return java.util.OptionalLong.empty();
        }
        try {
            return java.util.OptionalLong.of(
                    control().queueDeclarePassive(queue).getMessageCount());
        } catch (IOException | RuntimeException e) {
            log.debug(
                    "the depth of queue {} cannot be read ({})",
                    queue,
                    e.getClass().getSimpleName());
            return java.util.OptionalLong.empty();
        }
    }

    /**
     * Declares {@code queue} unless it was declared on this connection. A queue the broker refuses (a
     * name it does not accept, {@code PRECONDITION_FAILED} because it exists with other arguments, no
     * permission) fails only its own dispatches, and is not asked about again for {@link #QUEUE_RETRY}.
     */
    private boolean declare(String queue) {
        if (declaredQueues.contains(queue)) {
            return true;
        }
        Instant retryAt = brokenQueues.get(queue);
        if (retryAt != null && clock.instant().isBefore(retryAt)) {
            return false;
        }
        try {
            Map<String, Object> arguments = queueType == QueueType.QUORUM ? Map.of("x-queue-type", "quorum") : null;
            control().queueDeclare(queue, true, false, false, arguments);
            declaredQueues.add(queue);
            if (brokenQueues.remove(queue) != null) {
                log.info("queue {} declared: its dispatches go out again", queue);
            }
            return true;
        } catch (IOException | RuntimeException e) {
            Connection c = connection; // a refused declaration closes the control channel: control() opens another
            if (c == null || !c.isOpen()) {
                return false; // the connection is gone, not the queue
            }
            brokenQueues.put(queue, clock.instant().plus(QUEUE_RETRY));
            log.error(
                    "queue {} cannot be declared ({}); its dispatches fail with queue_declare_failed (retried after their delay),"
                            + " the queue is declared again in {} s",
                    queue,
                    reason(e),
                    QUEUE_RETRY.toSeconds());
            return false;
        }
    }

    /** The broker's reply code (e.g. 406 PRECONDITION_FAILED) or the exception's class: never the broker's text. */
    private static String reason(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ShutdownSignalException sig && sig.getReason() instanceof AMQP.Channel.Close close) {
                return "reply code " + close.getReplyCode();
            }
        }
        return e.getClass().getSimpleName();
    }

    private boolean exchangeExists(String exchange) {
        if (exchange.isEmpty()) {
            return true; // the default exchange always exists
        }
        Long checked = checkedExchanges.get(exchange);
        if (checked != null && System.nanoTime() - checked < EXCHANGE_CHECK_NANOS) {
            return true;
        }
        try {
            control().exchangeDeclarePassive(exchange);
            checkedExchanges.put(exchange, System.nanoTime());
            return true;
        } catch (IOException | ShutdownSignalException e) {
            log.error(
                    "exchange {} does not exist or cannot be checked ({}); its dispatches go back to retry",
                    exchange,
                    e.getClass().getSimpleName());
            checkedExchanges.remove(exchange);
            control = null;
            return false;
        }
    }

    private Channel control() throws IOException {
        Channel c = control;
        Connection conn = connection;
        if (conn == null) {
            throw new IOException("not connected");
        }
        if (c == null || !c.isOpen()) {
            c = conn.createChannel();
            control = c;
        }
        return c;
    }

    @Override
    public void close() {
        closeQuietly();
    }

    private void closeQuietly() {
        Connection c = connection;
        connection = null;
        channel = null;
        confirms = null;
        control = null;
        if (c != null && c.isOpen()) {
            try {
                c.close(5_000);
            } catch (IOException | RuntimeException e) {
                log.debug(
                        "closing the broker connection failed ({})",
                        e.getClass().getSimpleName());
            }
        }
    }
}
