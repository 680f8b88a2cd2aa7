package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.api.Outbox;
import org.jooq.DSLContext;
import org.springframework.transaction.annotation.Transactional;

/** Records an event in a transaction of Spring's, as an application's service does (a bean of the test's application). */
class EventDesk {
    private final DSLContext dsl;
    private final Outbox outbox;

    EventDesk(DSLContext dsl, Outbox outbox) {
        this.dsl = dsl;
        this.outbox = outbox;
    }

    @Transactional
    public void place(Object event) {
        outbox.record(dsl, event);
    }
}
