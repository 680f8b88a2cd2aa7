package dev.outbox.worker;

import org.jooq.DSLContext;

/** The side effect {@link Inbox#runOnce} applies at most once, in the transaction of {@code tx}. */
@FunctionalInterface
public interface InboxEffect {

    void apply(DSLContext tx);
}
