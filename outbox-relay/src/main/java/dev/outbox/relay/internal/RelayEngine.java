package dev.outbox.relay.internal;

import dev.outbox.delivery.LogText;
import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.internal.Claimed;
import dev.outbox.delivery.internal.DeliveryLog;
import dev.outbox.delivery.internal.FailureReason;
import dev.outbox.delivery.internal.LogDigest;
import dev.outbox.delivery.internal.LogSummary;
import dev.outbox.delivery.internal.OperatorTransitions;
import dev.outbox.delivery.internal.Outage;
import dev.outbox.delivery.internal.PlannedDsl;
import dev.outbox.delivery.internal.RelayTransitions;
import dev.outbox.delivery.internal.RetryOutcome;
import dev.outbox.relay.BrokerUnavailableException;
import dev.outbox.relay.DatabaseUnavailableException;
import dev.outbox.relay.JobRoute;
import dev.outbox.relay.Ordering;
import dev.outbox.relay.PassResult;
import dev.outbox.relay.RelayException;
import dev.outbox.relay.RelayLoggers;
import dev.outbox.relay.Route;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jooq.Configuration;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs relay passes: T1 route and T2 dispatch in alternating batches, then the T4 timeout sweep. The
 * batches overlap: each T1 batch runs in a transaction of its own on the routing thread while this
 * thread claims and publishes the deliveries of the batch routed before it (a pass claims only what a
 * committed T1 batch created), and a claimed batch is published while the next one is claimed, and
 * settled after. A pass returns, or fails, only once its last routing batch has ended. Also the loop of
 * a long-running relay: a pass, then, when it found nothing to do, a wait for a notification or the
 * sleep. Used by one thread at a time.
 */
public final class RelayEngine implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RelayLoggers.RELAY);
    private static final String UNSTARTED =
            "dispatch timed out before any worker took it, sent again without counting an attempt";
    /** The longest wait between two tries of a looping relay during an outage. */
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    /**
     * The longest a busy loop goes between two T4 sweeps (or the sleep, when it is shorter). An idle
     * loop sweeps in the pass after each wait, which is at most the sleep; a busy one would otherwise
     * sweep in every pass, hundreds a second under a steady stream, for deliveries whose timeouts are
     * counted in seconds.
     */
    static final Duration MAX_SWEEP_INTERVAL = Duration.ofSeconds(1);
    /**
     * How long a loop first waits after a pass that found work before it looks again without a
     * notification; each idle look doubles it, up to the sleep. Without these looks a polling loop
     * would wait the whole sleep after the first empty pass while events keep coming, and a listening
     * one would leave an event whose recording sent no NOTIFY (within the producers' notify interval)
     * for the sleep. A look is one statement ({@link #awaitWork}); a pass follows only when it finds work.
     */
    static final Duration FIRST_FOLLOW_UP = Duration.ofMillis(10);

    /** How many of the newest blocked heads each sweep reads for {@link #warnBlocked}. */
    static final int BLOCKED_READ = 100;
    /** How many warned blocked heads the relay remembers. */
    static final int BLOCKED_WARNED = 10_000;

    private final RelaySettings settings;
    private final DataSource dataSource;
    private final Configuration planned;
    private final RelayTransitions transitions;
    private final AmqpPublisher publisher;
    private final Wakeups wakeups;
    private final RelayMeters meters;
    private final Set<String> jobQueues = new TreeSet<>();
    /** Whether some route publishes to an exchange: those deliveries are claimed whatever the job queues hold. */
    private final boolean publishRoutes;

    private final UnroutedWarnings unroutedWarnings = new UnroutedWarnings();
    /** Whether the relay said that events without an ordering key reached an ordered route. */
    private volatile boolean unkeyedWarned;
    /** The reader of blocked keys, when some route is ordered; null otherwise. */
    private final @Nullable OperatorTransitions blockedKeys;
    /** The blocked heads this relay has warned about, by delivery id, the oldest forgotten first past {@link #BLOCKED_WARNED}. */
    private final Set<UUID> blockedWarned = java.util.Collections.newSetFromMap(new java.util.LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, Boolean> eldest) {
            return size() > BLOCKED_WARNED;
        }
    });
    /** Timeouts, refusals and holds counted per queue, and final failures bounded per interval. */
    private final LogDigest digest = new LogDigest(log);
    /** What the loop did, at INFO at most once a minute when it did something (each pass's counts are at DEBUG). */
    private final LogSummary summary = new LogSummary(
            log,
            "relay",
            List.of(
                    "event(s) routed",
                    "delivery(ies) created",
                    "dispatched",
                    "confirmed",
                    "publish failure(s)",
                    "completed",
                    "timed out"));

    private final QueueDepths depths;
    private boolean queuesDeclared;
    /**
     * The routing thread: runs the T1 batches of a pass, one at a time, so that the pass routes its
     * next batch while it claims and publishes what the last one created (two connections at once).
     */
    private final ExecutorService router = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "outbox-relay-route");
        t.setDaemon(true);
        return t;
    });
    /**
     * Published and not yet settled: the last batch of a pass, until the next batch is published or
     * the pass ends (or, in the loop, the next pass). Kept here so that a pass that fails leaves it to
     * the next one, which settles it.
     */
    private List<Published> inFlight = List.of();

    private final long sweepIntervalNanos;
    /** When the loop's last sweep began ({@link System#nanoTime}); none yet when {@link #swept} is false. */
    private long lastSweep;

    private boolean swept;

    public RelayEngine(RelaySettings settings) {
        this.settings = settings;
        this.dataSource = settings.dataSource();
        // planned once, without a connection: each transaction derives it onto the connection it takes, and the
        // transitions find it planned already (PlannedDsl.planned returns such a context as it is)
        this.planned = PlannedDsl.planned(DSL.using(SQLDialect.POSTGRES), settings.tables())
                .configuration();
        this.transitions =
                new RelayTransitions(settings.tables(), settings.routes().toRouteTable(), settings.clock());
        this.publisher = new AmqpPublisher(
                settings.amqp(),
                settings.queueType(),
                settings.maxInFlight(),
                settings.confirmTimeout(),
                settings.clock());
        this.meters = settings.meters();
        this.sweepIntervalNanos =
                (settings.sleep().compareTo(MAX_SWEEP_INTERVAL) < 0 ? settings.sleep() : MAX_SWEEP_INTERVAL).toNanos();
        this.wakeups = new Wakeups(
                settings.pollOnly() ? null : settings.listenConnection(),
                settings.notifyChannel(),
                settings.wakeupLinger());
        boolean publishing = false;
        for (Route route : settings.routes().all()) {
            if (route instanceof JobRoute job) {
                jobQueues.add(job.queue());
            } else {
                publishing = true;
            }
        }
        this.publishRoutes = publishing;
        this.blockedKeys = settings.routes().all().stream().anyMatch(r -> r.ordering() != Ordering.UNORDERED)
                ? new OperatorTransitions(settings.tables(), settings.clock())
                : null;
        this.depths =
                new QueueDepths(settings.maxQueueDepth(), jobQueues, System::nanoTime, new QueueDepths.Listener() {
                    @Override
                    public void held(String queue, long depth, int maxDepth) {
                        if (digest.warn("dispatches held back", queue, "depth " + depth)) {
                            log.warn(
                                    "queue {} holds {} messages waiting for a worker, its bound {}: its deliveries stay pending until its"
                                            + " consumers catch up (OUTBOX_MAX_QUEUE_DEPTH)",
                                    LogText.of(queue),
                                    depth,
                                    maxDepth);
                        }
                        meters.queueHeld(queue, true);
                    }

                    @Override
                    public void released(String queue, long depth, long heldNanos) {
                        log.debug(
                                "queue {} below its bound again (depth {}) after {} ms",
                                LogText.of(queue),
                                depth,
                                heldNanos / 1_000_000);
                        meters.queueHeld(queue, false);
                    }
                });
    }

    /**
     * One pass.
     *
     * @throws DatabaseUnavailableException when the database cannot be reached or is restarting (the
     *     pass stops; what it committed stays)
     * @throws RelayException when the database fails otherwise (a missing table, a refused login ...)
     * @throws BrokerUnavailableException when the broker cannot be reached (nothing was claimed)
     */
    public PassResult pass() {
        return pass(false);
    }

    /**
     * One pass; in the loop ({@code looping}), after a pass that found work, the publishes of its last
     * batch are left in flight and settled by the next pass, once it has routed, claimed and published
     * what came meanwhile: the broker's confirms of one batch then arrive while the next is prepared,
     * instead of holding up the next pass. A pass that finds nothing new settles them. The loop's
     * passes also sweep (T4) only when {@link #MAX_SWEEP_INTERVAL} (or the sleep) has gone by since
     * the last sweep began; a pass outside the loop always sweeps.
     */
    private PassResult pass(boolean looping) {
        long started = meters.passStarted();
        String outcome = RelayMeters.FAILED;
        try {
            PassResult result = passOnce(looping);
            outcome = result.idle() ? RelayMeters.IDLE : RelayMeters.BUSY;
            return result;
        } catch (DatabaseUnavailableException e) {
            outcome = RelayMeters.DATABASE_UNAVAILABLE;
            throw e;
        } catch (BrokerUnavailableException e) {
            outcome = RelayMeters.BROKER_UNAVAILABLE;
            throw e;
        } finally {
            meters.passEnded(started, outcome);
        }
    }

    private PassResult passOnce(boolean looping) {
        Tally tally = new Tally();
        Future<RelayTransitions.Routed> routing = null;
        try {
            routing = routeNext(null);
            boolean moreToRoute = true;
            boolean moreToDispatch = true;
            while (moreToRoute || moreToDispatch) {
                if (routing != null) {
                    RelayTransitions.Routed routed = awaitRouted(routing);
                    routing = null;
                    count(routed, tally);
                    moreToRoute = routed.seen() == settings.routeBatchSize();
                    if (moreToRoute) {
                        // the next batch is routed on the routing thread while this one is claimed and published here
                        routing = routeNext(routed.lastSeen());
                    }
                } else {
                    moreToRoute = false;
                }
                if (!queuesDeclared) {
                    publisher.declareQueues(jobQueues);
                    queuesDeclared = true;
                }
                try {
                    publisher.ensureOpen(); // never claim what cannot be sent
                } catch (BrokerUnavailableException e) {
                    settleInFlight(tally); // what was in flight on the lost connection goes back to retry now
                    throw e;
                }
                Set<String> held = depths.refresh(publisher::readyMessages);
                for (String queue : jobQueues) {
                    meters.queueDepth(queue, depths.depth(queue), depths.maxDepth());
                }
                // every job queue full and nothing to publish: nothing to claim until the consumers take some
                List<Claimed> claimed = !held.isEmpty() && !publishRoutes && held.containsAll(jobQueues)
                        ? List.of()
                        : inTransaction(tx -> transitions.claimExcept(tx, settings.dispatchBatchSize(), held));
                tally.dispatched += claimed.size();
                meters.dispatched(claimed);
                moreToDispatch = claimed.size() >= settings.dispatchBatchSize(); // T2 and T2o may each fill a batch
                List<Published> next;
                try {
                    next = claimed.isEmpty() ? List.of() : publisher.publish(claimed);
                } catch (BrokerUnavailableException e) {
                    // lost between the claim and the publish: the claimed batch never left, the one in flight is lost
                    settleInFlight(tally);
                    settle(
                            claimed.stream()
                                    .map(d -> Published.failed(d, Published.NOT_SENT))
                                    .toList(),
                            tally);
                    throw e;
                }
                depths.published(claimed);
                settleInFlight(tally);
                inFlight = next;
            }
            if (!looping || tally.dispatched == 0) {
                settleInFlight(tally);
            }
            if (!looping || sweepDue()) {
                sweep(tally);
            }
        } catch (DataAccessException e) {
            throw DatabaseErrors.classify(e, dataSource);
        } finally {
            if (routing != null) {
                finishRouting(routing, tally);
            }
        }
        PassResult result = new PassResult(
                tally.routed,
                tally.created,
                tally.unrouted,
                tally.dispatched,
                tally.confirmed,
                tally.failed,
                tally.completed,
                tally.timedOut);
        if (!result.idle()) {
            log.debug("pass: {}", result);
        }
        return result;
    }

    /** T1 for the batch after {@code after}, in a transaction of its own on the routing thread. */
    private Future<RelayTransitions.Routed> routeNext(@Nullable UUID after) {
        return router.submit(() -> inTransaction(tx -> transitions.route(tx, settings.routeBatchSize(), after)));
    }

    /** The outcome of a routing batch: waits for it (an interrupt is kept for later), rethrows what it threw. */
    private static RelayTransitions.Routed awaitRouted(Future<RelayTransitions.Routed> routing) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return routing.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = Objects.requireNonNullElse(e.getCause(), e);
                    if (cause instanceof RuntimeException r) {
                        throw r;
                    }
                    if (cause instanceof Error err) {
                        throw err;
                    }
                    throw new RelayException(
                            "routing failed (" + cause.getClass().getName() + ")", cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A pass that ends early still waits for the batch being routed, and counts it when it went through. */
    private void finishRouting(Future<RelayTransitions.Routed> routing, Tally tally) {
        try {
            count(awaitRouted(routing), tally);
        } catch (RuntimeException e) {
            log.debug(
                    "the routing batch of a failed pass failed too ({})",
                    e.getClass().getSimpleName());
        }
    }

    private void count(RelayTransitions.Routed routed, Tally tally) {
        tally.routed += routed.events();
        meters.routed(routed.events());
        meters.routedUnkeyed(routed.unkeyed());
        if (routed.unkeyed() > 0 && !unkeyedWarned) {
            unkeyedWarned = true;
            log.warn(
                    "{} delivery(ies) of ordered routes were created for events without an ordering key: those go unordered"
                            + " (said once; the meter outbox.relay.deliveries.unkeyed counts them)",
                    routed.unkeyed());
        }
        tally.created += routed.deliveries();
        for (String type : routed.unroutedTypes()) {
            if (tally.unrouted.add(type)
                    && unroutedWarnings.due(type, settings.clock().instant())) {
                log.warn(
                        "events of type {} have no route: they stay unrouted until a route for them is configured"
                                + " (said again at most every {} min while they wait; status counts them)",
                        type,
                        UnroutedWarnings.INTERVAL.toMinutes());
            }
        }
    }

    /**
     * T4u then T4, each in batches until a batch finds fewer overdue dispatches than it could take:
     * dispatches no worker picked up are sent again without counting an attempt, jobs that ran out of
     * time go through retry-or-fail. Both are counted per queue in the digest, not logged one by one.
     */
    private void sweep(Tally tally) {
        while (true) {
            List<RelayTransitions.UnstartedTimeout> unstarted =
                    inTransaction(tx -> transitions.timeOutUnstarted(tx, settings.timeoutBatchSize()));
            for (RelayTransitions.UnstartedTimeout u : unstarted) {
                if (digest.warn(
                                UNSTARTED,
                                u.queue(),
                                "delivery " + u.deliveryId() + " (" + u.unstartedTimeouts() + " time(s))")
                        || log.isDebugEnabled()) {
                    MDC.put(DeliveryLog.MDC_EVENT_ID, u.eventId().toString());
                    MDC.put(DeliveryLog.MDC_DELIVERY_ID, u.deliveryId().toString());
                    try {
                        log.warn(
                                "delivery {} of event {} ({}, queue {}): dispatch {} timed out before any worker took it ({} time(s)); sent"
                                        + " again without counting an attempt",
                                u.deliveryId(),
                                u.eventId(),
                                u.jobType(),
                                LogText.of(u.queue()),
                                u.dispatchId(),
                                u.unstartedTimeouts());
                    } finally {
                        MDC.remove(DeliveryLog.MDC_EVENT_ID);
                        MDC.remove(DeliveryLog.MDC_DELIVERY_ID);
                    }
                }
            }
            tally.timedOut += unstarted.size();
            meters.timedOutUnstarted(unstarted);
            if (unstarted.size() < settings.timeoutBatchSize()) {
                break;
            }
        }
        while (true) {
            List<RetryOutcome> timedOut = inTransaction(tx -> transitions.timeOut(tx, settings.timeoutBatchSize()));
            for (RetryOutcome o : timedOut) {
                DeliveryLog.retryOutcome(log, digest, o, FailureReason.TIMEOUT.code());
            }
            tally.timedOut += timedOut.size();
            meters.timedOut(timedOut);
            if (timedOut.size() < settings.timeoutBatchSize()) {
                break;
            }
        }
        warnBlocked();
    }

    /**
     * With ordered routes: one WARNING for each key newly blocked on a route, read with the sweep
     * (the {@link #BLOCKED_READ} newest blocked heads, through {@code failed_idx}). Each relay warns
     * once per head it sees; a head requeued and blocked again is a new failure and warned again.
     */
    private void warnBlocked() {
        if (blockedKeys == null) {
            return;
        }
        List<OperatorTransitions.BlockedKey> newest =
                inTransaction(tx -> blockedKeys.newestBlockedKeys(tx, BLOCKED_READ));
        for (int i = newest.size() - 1; i >= 0; i--) { // the oldest first
            OperatorTransitions.BlockedKey b = newest.get(i);
            if (blockedWarned.add(b.deliveryId())) {
                log.warn(
                        "key {} is blocked on route {} (queue {}): its head, delivery {} of event {}, failed for good ({}); nothing else of"
                                + " the key goes until an operator runs 'blocked requeue' or 'blocked skip'",
                        LogText.of(b.orderingKey()),
                        LogText.of(b.jobType()),
                        LogText.of(b.queue()),
                        b.deliveryId(),
                        b.eventId(),
                        LogText.of(b.failureReason()));
            }
        }
    }

    /** True when the loop's next sweep is due; it is then taken as begun. */
    private boolean sweepDue() {
        if (!sweepDueNow()) {
            return false;
        }
        swept = true;
        lastSweep = System.nanoTime();
        return true;
    }

    /** True when the loop's next sweep is due, without taking it as begun. */
    private boolean sweepDueNow() {
        return !swept || System.nanoTime() - lastSweep >= sweepIntervalNanos;
    }

    /**
     * Runs passes until {@code stopped} turns true; after a pass that found nothing to do it waits for
     * a notification or the sleep (shorter waits first after a busy pass: {@link #FIRST_FOLLOW_UP}).
     * An outage of the database or the broker is logged once and the pass is tried again after a
     * backoff (100 ms doubling up to the sleep, at most 30 s), until it goes through; the recovery is
     * logged with the outage's length.
     *
     * @throws RelayException when the database fails for good (a missing table, a refused login ...)
     */
    public void loop(BooleanSupplier stopped) {
        log.info(
                "relay loop started (sleep {} s, {})",
                settings.sleep().toSeconds(),
                settings.pollOnly() ? "polling only" : "LISTEN on " + settings.notifyChannel());
        Duration cap = settings.sleep().compareTo(MAX_BACKOFF) < 0 ? settings.sleep() : MAX_BACKOFF;
        Outage database = new Outage(log, "database", cap);
        Outage broker = new Outage(log, "broker", cap);
        FollowUps followUps = new FollowUps(FIRST_FOLLOW_UP, settings.sleep());
        try {
            while (!stopped.getAsBoolean()) {
                digest.flushIfDue();
                summary.flushIfDue();
                try {
                    PassResult result = pass(true);
                    summary.add(
                            result.routedEvents(),
                            result.createdDeliveries(),
                            result.dispatched(),
                            result.confirmed(),
                            result.publishFailed(),
                            result.completed(),
                            result.timedOut());
                    answered(database);
                    broker.over();
                    if (!result.idle()) {
                        followUps.busy();
                        continue;
                    }
                    awaitWork(followUps, stopped);
                } catch (DatabaseUnavailableException e) {
                    Wakeups.pause(database.failed(String.valueOf(e.getMessage())), stopped);
                } catch (BrokerUnavailableException e) {
                    answered(database); // the pass routed before it needed the broker
                    Wakeups.pause(broker.failed(String.valueOf(e.getMessage())), stopped);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            settleLeftInFlight();
            digest.flush();
            summary.flush();
            log.info("relay loop stopped");
        }
    }

    /**
     * Waits after an idle pass until the next pass: a notification, the sleep, or a follow-up look
     * ({@link FollowUps}) that finds work ({@link RelayTransitions#workWaiting}). A look is one
     * statement in auto-commit mode instead of a pass, and finds what the pass would: unrouted events
     * with routes and available pending deliveries (the idle pass settled what was in flight). When a
     * sweep is due, the look is a pass, so that sweeps stay as frequent as they were.
     */
    private void awaitWork(FollowUps followUps, BooleanSupplier stopped) throws InterruptedException {
        while (true) {
            Duration wait = followUps.next();
            if (wakeups.await(wait, stopped)
                    || wait.compareTo(settings.sleep()) >= 0
                    || stopped.getAsBoolean()
                    || sweepDueNow()
                    || workWaiting()) {
                return;
            }
        }
    }

    private boolean workWaiting() {
        try {
            // a held queue's pending deliveries are no work until its depth, read again here, falls below the bound
            Set<String> held = depths.held().isEmpty() ? Set.of() : depths.refresh(publisher::readyMessages);
            digest.flushIfDue();
            summary.flushIfDue();
            return read(ctx -> transitions.workWaiting(ctx, held));
        } catch (DataAccessException e) {
            throw DatabaseErrors.classify(e, dataSource);
        }
    }

    /** The waits of a loop after its idle passes: {@code first} after a busy pass, doubling with each idle pass up to {@code sleep}. */
    static final class FollowUps {
        private final Duration first;
        private final Duration sleep;
        private @Nullable Duration next;

        FollowUps(Duration first, Duration sleep) {
            this.first = first;
            this.sleep = sleep;
        }

        /** A pass found work: the next idle pass waits {@code first}. */
        void busy() {
            next = first;
        }

        /** How long to wait after an idle pass. */
        Duration next() {
            Duration wait = next;
            if (wait == null || wait.compareTo(sleep) >= 0) {
                next = null;
                return sleep;
            }
            next = wait.multipliedBy(2);
            return wait;
        }
    }

    /** The loop ends: what its last pass left in flight is settled now, so that a stopping relay leaves nothing unsettled. */
    private void settleLeftInFlight() {
        int left = inFlight.size();
        if (left == 0) {
            return;
        }
        try {
            settleInFlight(new Tally());
        } catch (DataAccessException e) {
            // the database is gone as the relay stops: those dispatches stay dispatched and time out into a retry (T4)
            log.warn(
                    "could not settle {} dispatch(es) in flight as the relay stopped ({}); they are retried after their timeout",
                    left,
                    DatabaseErrors.classify(e, dataSource).getMessage());
        }
    }

    private void answered(Outage database) {
        if (database.on()) {
            database.over();
            wakeups.relistenNow(); // the LISTEN connection died with the others
        }
    }

    private void settleInFlight(Tally tally) {
        List<Published> settling = inFlight;
        inFlight = List.of();
        try {
            settle(settling, tally);
        } finally {
            depths.settled(settling.stream().map(Published::dispatch).toList());
        }
    }

    private void settle(List<Published> inFlight, Tally tally) {
        if (inFlight.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + publisher.confirmTimeoutMillis() * 1_000_000;
        List<Claimed> toComplete = new ArrayList<>();
        List<Claimed> refused = new ArrayList<>();
        List<Claimed> unsent = new ArrayList<>();
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
            Claimed d = p.dispatch();
            if (failure == null) {
                tally.confirmed++;
                meters.confirmed(d, p.latencyNanos());
                if (d.kind() == RouteKind.PUBLISH) {
                    toComplete.add(d);
                }
            } else if (Published.NOT_SENT.equals(failure)) {
                unsent.add(d);
                meters.refused(d, failure);
            } else {
                refused.add(d);
                meters.refused(d, failure);
                causes.put(d.deliveryId(), failure);
                if (Published.RETURNED.equals(failure) && d.kind() == RouteKind.JOB) {
                    publisher.forgetQueue(d.queue());
                }
                if (log.isDebugEnabled()) {
                    MDC.put(DeliveryLog.MDC_EVENT_ID, d.eventId().toString());
                    MDC.put(DeliveryLog.MDC_DELIVERY_ID, d.deliveryId().toString());
                    try {
                        log.debug(
                                "dispatch {} of delivery {} was not accepted by the broker ({})",
                                d.dispatchId(),
                                d.deliveryId(),
                                failure);
                    } finally {
                        MDC.remove(DeliveryLog.MDC_EVENT_ID);
                        MDC.remove(DeliveryLog.MDC_DELIVERY_ID);
                    }
                }
            }
        }
        if (toComplete.isEmpty() && refused.isEmpty() && unsent.isEmpty()) {
            return;
        }
        List<UUID> completed = new ArrayList<>();
        List<RetryOutcome> outcomes = inTransaction(tx -> {
            if (!toComplete.isEmpty()) {
                completed.addAll(transitions.completePublished(
                        tx, ids(toComplete, Claimed::deliveryId), ids(toComplete, Claimed::dispatchId)));
                tally.completed += completed.size();
            }
            if (!unsent.isEmpty()) {
                int released = transitions
                        .releaseUnsent(tx, ids(unsent, Claimed::deliveryId), ids(unsent, Claimed::dispatchId))
                        .size();
                log.info(
                        "{} claimed delivery(ies) never reached the broker (connection lost): back to pending, the attempt not counted",
                        released);
            }
            List<RetryOutcome> changed = new ArrayList<>();
            // a queue that could not be declared says so in failure_reason; any other refusal is publish_failed
            Map<Boolean, List<Claimed>> byQueue = refused.stream()
                    .collect(Collectors.partitioningBy(
                            d -> Published.QUEUE_DECLARE_FAILED.equals(causes.get(d.deliveryId()))));
            for (Map.Entry<Boolean, List<Claimed>> group : byQueue.entrySet()) {
                if (!group.getValue().isEmpty()) {
                    changed.addAll(transitions.publishRefused(
                            tx,
                            ids(group.getValue(), Claimed::deliveryId),
                            ids(group.getValue(), Claimed::dispatchId),
                            group.getKey() ? FailureReason.QUEUE_DECLARE_FAILED : FailureReason.PUBLISH_FAILED));
                }
            }
            return changed;
        });
        tally.failed += refused.size() + unsent.size();
        meters.completed(toComplete, completed);
        for (RetryOutcome o : outcomes) {
            DeliveryLog.retryOutcome(
                    log, digest, o, causes.getOrDefault(o.deliveryId(), FailureReason.PUBLISH_FAILED.code()));
        }
    }

    private static UUID[] ids(List<Claimed> dispatches, Function<Claimed, UUID> id) {
        return dispatches.stream().map(id).toArray(UUID[]::new);
    }

    /**
     * A read on a connection of its own, outside any transaction when the pool's connections are in
     * auto-commit mode (one round trip); otherwise in the connection's transaction, rolled back after.
     */
    private <T> T read(Function<DSLContext, T> work) {
        return onConnection(connection -> {
            T result = work.apply(DSL.using(planned.derive(connection)));
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
            return result;
        });
    }

    private <T> T inTransaction(Function<DSLContext, T> work) {
        return onConnection(connection -> DSL.using(planned.derive(connection))
                .transactionResult(configuration -> work.apply(configuration.dsl())));
    }

    /** Work on one connection, which may throw what JDBC throws. */
    @FunctionalInterface
    private interface ConnectionWork<T> {
        T apply(Connection connection) throws SQLException;
    }

    private <T> T onConnection(ConnectionWork<T> work) {
        // the connection is taken here, once: with a data source jOOQ would ask the pool again to roll back
        // a transaction that never began, and wait for the pool's timeout twice while the database is down
        Connection connection;
        try {
            connection = dataSource.getConnection();
        } catch (SQLException e) {
            throw new DataAccessException("cannot get a connection", e);
        }
        try {
            return work.apply(connection);
        } catch (SQLException e) {
            throw new DataAccessException("SQL failed (" + e.getClass().getSimpleName() + ")", e);
        } finally {
            try {
                connection.close(); // after a commit, a failing close must not turn it into an error
            } catch (SQLException e) {
                log.debug(
                        "returning a connection to the pool failed ({})",
                        e.getClass().getSimpleName());
            }
        }
    }

    @Override
    public void close() {
        router.shutdown();
        publisher.close();
        wakeups.close();
        meters.close();
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
