package dev.outbox.relay.cli;

import dev.outbox.relay.OutboxStatus;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code status --json}: the status as one JSON object (durations in seconds), built from the status record's accessors only. */
final class StatusJson {

    private StatusJson() {}

    static Map<String, Object> of(OutboxStatus status) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at", status.at().toString());
        m.put("queues", status.queues().stream().map(q -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", q.name());
            row.put("pending", q.pending());
            row.put("readyPending", q.readyPending());
            row.put("dispatched", q.dispatched());
            row.put("waitingForWorker", q.waitingForWorker());
            row.put("completed", q.completed());
            row.put("failed", q.failed());
            row.put("oldestReadySeconds", q.oldestReady() == null ? null : q.oldestReady().toMillis() / 1000.0);
            return row;
        }).toList());
        m.put("unroutedEvents", status.unroutedEvents());
        m.put("failuresByReason", status.failuresByReason());
        m.put("oldestReadySeconds", status.oldestReady().map(d -> d.toMillis() / 1000.0).orElse(null));
        m.put("blockedKeys", status.blockedKeyCount());
        m.put("blockedKeysByRoute", status.blockedKeys().stream().map(b -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("route", b.route());
            row.put("queue", b.queue());
            row.put("keys", b.keys());
            row.put("oldestKey", b.oldestKey());
            row.put("oldestAgeSeconds", b.oldestAge().toMillis() / 1000.0);
            return row;
        }).toList());
        return m;
    }
}
