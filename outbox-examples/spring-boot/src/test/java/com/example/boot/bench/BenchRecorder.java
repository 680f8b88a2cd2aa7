package com.example.boot.bench;

import com.example.boot.orders.OrderPlaced;
import dev.outbox.api.Outbox;
import org.jooq.DSLContext;
import org.springframework.transaction.annotation.Transactional;

/** One event per transaction, as a {@code @Transactional} service records it. */
public class BenchRecorder {

    private final DSLContext dsl;
    private final Outbox outbox;

    public BenchRecorder(DSLContext dsl, Outbox outbox) {
        this.dsl = dsl;
        this.outbox = outbox;
    }

    @Transactional
    public void record(OrderPlaced event) {
        outbox.record(dsl, event);
    }
}
