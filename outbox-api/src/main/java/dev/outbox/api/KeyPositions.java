package dev.outbox.api;

import static dev.outbox.schema.Tables.OUTBOX_EVENTS_KEYS;

import dev.outbox.schema.tables.records.OutboxEventsRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jooq.DSLContext;
import org.jooq.InsertValuesStep2;
import org.jooq.Record2;
import org.jooq.impl.DSL;

/**
 * The positions of events recorded with an ordering key (docs/ordering.md): one upsert of the keys'
 * last positions, in the recording transaction, takes the next positions of each key. Its row lock
 * holds until the transaction ends, so that a second transaction recording for the same key waits
 * for the first, and positions follow the order in which the transactions of a key commit; a
 * rollback gives the positions back. Keys are locked in sorted order, so that two batches of the
 * same keys wait for each other instead of deadlocking.
 */
final class KeyPositions {

    private KeyPositions() {}

    /** Sets the ordering position of every row of {@code rows} that has a key, in the order of {@code rows} within each key. */
    static void assign(DSLContext mapped, List<OutboxEventsRecord> rows, int keysPerStatement) {
        Map<String, Integer> counts = new TreeMap<>();
        for (OutboxEventsRecord r : rows) {
            if (r.getOrderingKey() != null) {
                counts.merge(r.getOrderingKey(), 1, Integer::sum);
            }
        }
        if (counts.isEmpty()) {
            return;
        }
        Map<String, Long> next = new HashMap<>();
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(counts.entrySet());
        for (int from = 0; from < entries.size(); from += keysPerStatement) {
            InsertValuesStep2<?, String, Long> upsert = mapped.insertInto(
                    OUTBOX_EVENTS_KEYS, OUTBOX_EVENTS_KEYS.ORDERING_KEY, OUTBOX_EVENTS_KEYS.LAST_POSITION);
            for (Map.Entry<String, Integer> e :
                    entries.subList(from, Math.min(entries.size(), from + keysPerStatement))) {
                upsert = upsert.values(e.getKey(), (long) e.getValue());
            }
            for (Record2<String, Long> last : upsert.onConflict(OUTBOX_EVENTS_KEYS.ORDERING_KEY)
                    .doUpdate()
                    .set(
                            OUTBOX_EVENTS_KEYS.LAST_POSITION,
                            OUTBOX_EVENTS_KEYS.LAST_POSITION.plus(DSL.excluded(OUTBOX_EVENTS_KEYS.LAST_POSITION)))
                    .returningResult(OUTBOX_EVENTS_KEYS.ORDERING_KEY, OUTBOX_EVENTS_KEYS.LAST_POSITION)
                    .fetch()) {
                next.put(last.value1(), last.value2() - counts.getOrDefault(last.value1(), 0) + 1);
            }
        }
        for (OutboxEventsRecord r : rows) {
            String key = r.getOrderingKey();
            if (key != null) {
                Long position =
                        java.util.Objects.requireNonNull(next.get(key), key); // every key of rows was upserted above
                r.setOrderingPosition(position);
                next.put(key, position + 1);
            }
        }
    }
}
