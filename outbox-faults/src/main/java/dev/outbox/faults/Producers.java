package dev.outbox.faults;

import dev.outbox.api.IdGenerator;
import dev.outbox.api.NewEvent;
import dev.outbox.api.Outbox;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Producer threads recording one event per transaction through {@link Outbox#recordIfAbsent}, paced to
 * {@code rate} events per second. Each event gets its id before its first try ({@link NewEvent#withId}),
 * so a retry after an error cannot mint a second event: a retry that finds the id taken ({@code false}) learns that
 * the earlier commit went through although its client saw an error (an ambiguous commit).
 */
final class Producers {

    private final Scenario scenario;
    private final DataSource dataSource;
    private final Outbox outbox;
    private final AtomicLong next = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong ambiguousCommits = new AtomicLong();
    private final Set<UUID> acknowledged = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new ArrayList<>();
    private final double rate;
    private volatile long startNanos;
    private volatile boolean stopped;

    Producers(Scenario scenario, DataSource dataSource, Outbox outbox, double rate) {
        this.scenario = scenario;
        this.dataSource = dataSource;
        this.outbox = outbox;
        this.rate = rate;
    }

    void start() {
        startNanos = System.nanoTime();
        for (int t = 0; t < scenario.producers(); t++) {
            Thread thread = new Thread(this::produce, "fault-producer-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    /** Gives up: no new event is begun, a retry in progress is abandoned. */
    void stop() {
        stopped = true;
    }

    boolean done() {
        return threads.stream().noneMatch(Thread::isAlive);
    }

    void await() throws InterruptedException {
        for (Thread t : threads) {
            t.join();
        }
    }

    private void produce() {
        DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
        IdGenerator ids = IdGenerator.uuidV7();
        long seq;
        while (!stopped && (seq = next.getAndIncrement()) < scenario.events()) {
            long due = startNanos + (long) (seq * 1e9 / rate);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            Object payload = scenario.doomed(seq)
                    ? new DoomedEvent(seq, "doomed")
                    : new FaultEvent(
                            seq,
                            scenario.flaky(seq)
                                    ? FaultEvent.FLAKY
                                    : scenario.terminal(seq) ? FaultEvent.TERMINAL : FaultEvent.ORDINARY);
            NewEvent unkeyed = NewEvent.of(payload).withId(ids.next());
            NewEvent event = scenario.orderedRoutes() ? unkeyed.withOrderingKey(scenario.key(seq)) : unkeyed;
            while (!stopped) {
                try {
                    boolean recorded = dsl.transactionResult(tx -> outbox.recordIfAbsent(tx.dsl(), event));
                    if (!recorded) { // the id is taken: the earlier try committed
                        ambiguousCommits.incrementAndGet();
                    }
                    acknowledged.add(event.id());
                    break;
                } catch (RuntimeException e) {
                    errors.incrementAndGet();
                    LockSupport.parkNanos(200_000_000L);
                }
            }
        }
    }

    Set<UUID> acknowledged() {
        return acknowledged;
    }

    long errors() {
        return errors.get();
    }

    long ambiguousCommits() {
        return ambiguousCommits.get();
    }
}
