package dev.outbox.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.api.EventType;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.Intercept;
import dev.outbox.worker.WorkerFixture.Sent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A burst of messages is looked up in groups larger than the 32 the lookup thread used to stay ahead
 * of the handlers: a group takes what the broker hands over back to back, one query for all of it.
 */
class LookupGroupsIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture();

    @EventType("order.placed")
    record OrderPlaced(long orderId) {}

    static final String JOB = "send-confirmation";

    /** The class's data source; records how many delivery ids each lookup (the query that joins deliveries and events) reads. */
    private static DataSource countingLookups(List<Integer> groups) {
        return Intercept.of(DataSource.class, fixture.db.dataSource(), call -> {
            Object result = call.proceed();
            if (!call.name().equals("getConnection")) {
                return result;
            }
            return Intercept.of(Connection.class, (Connection) result, c -> {
                Object r = c.proceed();
                if (!(c.name().equals("prepareStatement")
                        && c.arg(0) instanceof String sql
                        && sql.contains(" join "))) {
                    return r;
                }
                return Intercept.of(PreparedStatement.class, (PreparedStatement) r, st -> {
                    if (st.name().equals("setObject") && st.arg(1) instanceof String ids && ids.startsWith("{")) {
                        groups.add(ids.split(",").length);
                    }
                    return st.proceed();
                });
            });
        });
    }

    @Test
    void looksUpABurstOfMessagesInGroupsLargerThan32() throws Exception {
        String queue = fixture.queue("lookup-groups");
        List<Sent> sent = fixture.dispatchedInBulk(
                IntStream.range(0, 300).mapToObj(i -> new OrderPlaced(i)).toList(), JOB, queue);
        for (Sent s : sent) {
            fixture.publish(s); // all queued before the worker consumes: the broker hands them over back to back
        }
        List<Integer> groups = new CopyOnWriteArrayList<>();
        OutboxWorker worker = fixture.worker()
                .dataSource(countingLookups(groups))
                .queue(queue, 4, 500)
                .handler(JOB, OrderPlaced.class, (event, context) -> {})
                .build();
        try {
            worker.start();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> sent.stream()
                            .allMatch(s -> fixture.status(s.deliveryId()) == OutboxDeliveryStatus.completed));
        } finally {
            worker.close();
        }

        List<Integer> read =
                new ArrayList<>(groups.subList(1, groups.size())); // the first is the start's own check of the tables
        assertThat(read.stream().mapToInt(Integer::intValue).sum()).isEqualTo(300);
        assertThat(read).as("delivery ids per lookup: %s", read).anyMatch(n -> n > 32);
    }
}
