package dev.outbox.relay.internal;

import dev.outbox.api.Route;
import dev.outbox.api.RouteKind;
import dev.outbox.api.internal.DeliveryLog;
import dev.outbox.api.internal.OutboxDsl;
import dev.outbox.api.internal.RetryOutcome;
import dev.outbox.relay.BrokerUnavailableException;
import dev.outbox.relay.PassResult;
import dev.outbox.relay.RelayException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs relay passes: T1 route and T2 dispatch in alternating batches (a claimed batch is published
 * while the next one is claimed, and settled after), then the T4 timeout sweep. Also the loop of a
 * long-running relay: a pass, then, when it found nothing to do, a wait for a notification or the
 * sleep. Used by one thread at a time.
 */
public final class RelayEngine implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger("dev.outbox.relay.Relay");

    private final RelaySettings settings;
    private final DSLContext dsl;
    private final RelayTransitions transitions;
    private final AmqpPublisher publisher;
    private final Wakeups wakeups;
    private final Set<String> jobQueues = new TreeSet<>();
    private boolean queuesDeclared;

    public RelayEngine(RelaySettings settings) {
        this.settings = settings;
        // planned once: every transaction of this context is planned already (OutboxDsl.planned returns it as is)
        this.dsl = OutboxDsl.planned(DSL.using(settings.dataSource(), SQLDialect.POSTGRES), settings.tables());
        this.transitions = new RelayTransitions(settings.tables(), settings.routes(), settings.clock());
        this.publisher = new AmqpPublisher(settings.amqp(), settings.queueType(), settings.maxInFlight(), settings.confirmTimeout());
        this.wakeups = new Wakeups(settings.pollOnly() ? null : settings.listenConnection(), settings.notifyChannel(), settings.wakeupLinger());
        for (Route route : settings.routes().all()) {
            if (route.kind() == RouteKind.JOB) {
                jobQueues.add(route.queue());
            }
        }
    }

    /**
     * One pass.
     *
     * @throws RelayException when the database fails (the pass stops; what it committed stays)
     * @throws BrokerUnavailableException when the broker cannot be reached (nothing was claimed)
     */
    public PassResult pass() {
        Tally tally = new Tally();
        try {
            List<Published> inFlight = List.of();
            boolean moreToRoute = true;
            boolean moreToDispatch = true;
            UUID after = null;
            while (moreToRoute || moreToDispatch) {
                if (moreToRoute) {
                    UUID from = after;
                    RelayTransitions.Routed routed = inTransaction(tx -> transitions.route(tx, settings.routeBatchSize(), from));
                    tally.routed += routed.events();
                    tally.created += routed.deliveries();
                    for (String type : routed.unroutedTypes()) {
                        if (tally.unrouted.add(type)) {
                            log.warn("events of type {} have no route: they stay unrouted until a route for them is configured", type);
                        }
                    }
                    moreToRoute = routed.seen() == settings.routeBatchSize();
                    after = routed.lastSeen();
                }
                if (!queuesDeclared) {
                    publisher.declareQueues(jobQueues);
                    queuesDeclared = true;
                }
                try {
                    publisher.ensureOpen(); // never claim what cannot be sent
                } catch (BrokerUnavailableException e) {
                    settle(inFlight, tally); // what was in flight on the lost connection goes back to retry now
                    throw e;
                }
                List<Dispatch> claimed = inTransaction(tx -> transitions.claim(tx, settings.dispatchBatchSize()));
                tally.dispatched += claimed.size();
                moreToDispatch = claimed.size() == settings.dispatchBatchSize();
                List<Published> next = claimed.isEmpty() ? List.of() : publisher.publish(claimed);
                settle(inFlight, tally);
                inFlight = next;
            }
            settle(inFlight, tally);
            while (true) {
                List<RetryOutcome> timedOut = inTransaction(tx -> transitions.timeOut(tx, settings.timeoutBatchSize()));
                for (RetryOutcome o : timedOut) {
                    DeliveryLog.retryOutcome(log, o, "timeout");
                }
                tally.timedOut += timedOut.size();
                if (timedOut.size() < settings.timeoutBatchSize()) {
                    break;
                }
            }
        } catch (DataAccessException e) {
            throw new RelayException("database error (" + rootCause(e) + ")", e);
        }
        PassResult result = new PassResult(tally.routed, tally.created, tally.unrouted, tally.dispatched, tally.confirmed, tally.failed,
                tally.completed, tally.timedOut);
        if (!result.idle()) {
            log.debug("pass: {}", result);
        }
        return result;
    }

    /**
     * Runs passes until {@code stopped} turns true; after a pass that found nothing to do it waits for
     * a notification or the sleep. A broker that cannot be reached is logged and tried again after the
     * sleep.
     *
     * @throws RelayException when the database fails
     */
    public void loop(BooleanSupplier stopped) {
        log.info("relay loop started (sleep {} s, {})", settings.sleep().toSeconds(),
                settings.pollOnly() ? "polling only" : "LISTEN on " + settings.notifyChannel());
        try {
            while (!stopped.getAsBoolean()) {
                try {
                    if (!pass().idle()) {
                        continue;
                    }
                    wakeups.await(settings.sleep(), stopped);
                } catch (BrokerUnavailableException e) {
                    // not a notification: the broker gets the whole sleep to come back
                    log.error("{}; trying again in {} s", e.getMessage(), settings.sleep().toSeconds());
                    try {
                        Wakeups.pause(settings.sleep(), stopped);
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        } finally {
            log.info("relay loop stopped");
        }
    }

    private void settle(List<Published> inFlight, Tally tally) {
        if (inFlight.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + publisher.confirmTimeoutMillis() * 1_000_000;
        List<Dispatch> toComplete = new ArrayList<>();
        List<Dispatch> refused = new ArrayList<>();
        Map<UUID, String> causes = new HashMap<>();
        for (Published p : inFlight) {
            String failure;
            try {
                failure = p.await((deadline - System.nanoTime()) / 1_000_000);
            } catch (TimeoutException e) {
                p.abandon();
                failure = Published.CONFIRM_TIMEOUT;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.abandon();
                failure = Published.CONFIRM_TIMEOUT;
            }
            Dispatch d = p.dispatch();
            if (failure == null) {
                tally.confirmed++;
                if (d.kind() == RouteKind.PUBLISH) {
                    toComplete.add(d);
                }
            } else {
                refused.add(d);
                causes.put(d.deliveryId(), failure);
                if (Published.RETURNED.equals(failure) && d.kind() == RouteKind.JOB) {
                    publisher.forgetQueue(d.queue());
                }
                if (log.isDebugEnabled()) {
                    MDC.put(DeliveryLog.MDC_EVENT_ID, d.eventId().toString());
                    MDC.put(DeliveryLog.MDC_DELIVERY_ID, d.deliveryId().toString());
                    try {
                        log.debug("dispatch {} of delivery {} was not accepted by the broker ({})", d.dispatchId(), d.deliveryId(), failure);
                    } finally {
                        MDC.remove(DeliveryLog.MDC_EVENT_ID);
                        MDC.remove(DeliveryLog.MDC_DELIVERY_ID);
                    }
                }
            }
        }
        if (toComplete.isEmpty() && refused.isEmpty()) {
            return;
        }
        List<RetryOutcome> outcomes = inTransaction(tx -> {
            if (!toComplete.isEmpty()) {
                tally.completed += transitions.completePublished(tx, ids(toComplete, Dispatch::deliveryId), ids(toComplete, Dispatch::dispatchId))
                        .size();
            }
            return refused.isEmpty() ? List.<RetryOutcome>of()
                    : transitions.publishRefused(tx, ids(refused, Dispatch::deliveryId), ids(refused, Dispatch::dispatchId));
        });
        tally.failed += refused.size();
        for (RetryOutcome o : outcomes) {
            DeliveryLog.retryOutcome(log, o, causes.getOrDefault(o.deliveryId(), "publish_failed"));
        }
    }

    private static UUID[] ids(List<Dispatch> dispatches, Function<Dispatch, UUID> id) {
        return dispatches.stream().map(id).toArray(UUID[]::new);
    }

    private <T> T inTransaction(Function<DSLContext, T> work) {
        return dsl.transactionResult(configuration -> work.apply(configuration.dsl()));
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName();
    }

    @Override
    public void close() {
        publisher.close();
        wakeups.close();
    }

    private static final class Tally {
        int routed;
        int created;
        final Set<String> unrouted = new LinkedHashSet<>();
        int dispatched;
        int confirmed;
        int failed;
        int completed;
        int timedOut;
    }
}
