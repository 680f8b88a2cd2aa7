package dev.outbox.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import dev.outbox.api.EventSerializer;
import dev.outbox.delivery.internal.DeliveryTransitions;
import dev.outbox.delivery.internal.WorkerTransitions;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.JobTracer;
import dev.outbox.worker.QueueSettings;
import java.io.IOException;
import java.time.Clock;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A consume that the broker refuses leaves the queue's consumer able to consume on the next try. */
class QueueConsumerIT {

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @Test
    void consumesOnTheNextTryAfterTheBrokerRefusedAConsume() throws Exception {
        String queue = rabbit.queue("consume-again");
        try (Connection other = rabbit.connectionFactory().newConnection("exclusive-holder");
                Connection connection = rabbit.connectionFactory().newConnection("queue-consumer-test")) {
            Channel holder = other.createChannel();
            holder.queueDeclare(queue, true, false, false, null);
            // an exclusive consumer makes the broker refuse every other basicConsume (403 ACCESS_REFUSED)
            String exclusive = holder.basicConsume(queue, false, "", false, true, null, new DefaultConsumer(holder));
            QueueConsumer consumer = new QueueConsumer(queue, QueueSettings.of(1, 10), processor());
            try {
                assertThatThrownBy(() -> consumer.start(connection)).isInstanceOf(IOException.class);

                holder.basicCancel(exclusive);
                consumer.start(connection); // what the queue's waiter does on its next try

                assertThat(holder.queueDeclarePassive(queue).getConsumerCount()).isEqualTo(1);
            } finally {
                consumer.stopConsuming();
                consumer.close();
                holder.queueDelete(queue);
            }
        }
    }

    /** A processor that is never asked to handle anything here: no message is published. */
    private static MessageProcessor processor() {
        DSLContext dsl = DSL.using(SQLDialect.POSTGRES);
        OutboxTables tables = OutboxTables.defaults();
        WorkerTransitions transitions = new WorkerTransitions(new DeliveryTransitions(tables, Clock.systemUTC()));
        CompletionWriter completions = new CompletionWriter(dsl, transitions, "queue-consumer-test-completions");
        return new MessageProcessor(
                dsl,
                new DeliveryQueries(dsl, tables),
                transitions,
                completions,
                EventSerializer.jackson(),
                Map.of(),
                () -> false,
                WorkerMeters.NONE,
                JobTracer.NONE);
    }
}
