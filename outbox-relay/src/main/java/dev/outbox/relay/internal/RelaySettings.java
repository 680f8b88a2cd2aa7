package dev.outbox.relay.internal;

import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.ListenConnection;
import dev.outbox.relay.QueueType;
import dev.outbox.relay.Routes;
import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The validated settings of one relay, handed from {@code OutboxRelay.Builder} to the engine;
 * {@code maxQueueDepth} 0 sets no bound on the messages waiting in a job queue.
 */
public record RelaySettings(
        DataSource dataSource,
        ConnectionFactory amqp,
        Routes routes,
        OutboxTables tables,
        Clock clock,
        int routeBatchSize,
        int dispatchBatchSize,
        int timeoutBatchSize,
        int maxInFlight,
        int maxQueueDepth,
        Duration confirmTimeout,
        QueueType queueType,
        String notifyChannel,
        boolean pollOnly,
        Duration sleep,
        @Nullable ListenConnection listenConnection,
        Duration wakeupLinger,
        RelayMeters meters) {}
