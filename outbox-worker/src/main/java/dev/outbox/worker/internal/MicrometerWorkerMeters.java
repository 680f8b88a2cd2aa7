package dev.outbox.worker.internal;

import dev.outbox.delivery.internal.FailureReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The worker's meters in a Micrometer registry (docs/observability.md, "Worker"). Tags are the queue,
 * the job type, the outcome and a reason code: bounded sets, never an id or a payload. Loaded only when
 * a registry was given.
 */
final class MicrometerWorkerMeters implements WorkerMeters {

    static final String HANDLER = "outbox.worker.handler";
    static final String JOBS = "outbox.worker.jobs";
    static final String DROPPED = "outbox.worker.messages.dropped";
    static final String IN_FLIGHT = "outbox.worker.jobs.in.flight";
    static final String LAG = "outbox.worker.lag";

    private final MeterRegistry registry;
    private final Clock clock;
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Map<List<String>, Timer> handlerTimers = new ConcurrentHashMap<>();
    private final Map<List<String>, Timer> lagTimers = new ConcurrentHashMap<>();
    private final Map<List<String>, Counter> counters = new ConcurrentHashMap<>();

    private MicrometerWorkerMeters(MeterRegistry registry, Collection<String> queues, Clock clock) {
        this.registry = registry;
        this.clock = clock;
        for (String queue : queues) {
            inFlight(queue);
        }
    }

    static WorkerMeters of(Object registry, Collection<String> queues, Clock clock) {
        return new MicrometerWorkerMeters((MeterRegistry) registry, queues, clock);
    }

    private AtomicInteger inFlight(String queue) {
        return inFlight.computeIfAbsent(queue, q -> {
            AtomicInteger n = new AtomicInteger();
            Gauge.builder(IN_FLIGHT, n, AtomicInteger::get)
                    .tag("queue", q)
                    .strongReference(true)
                    .description("handlers of the queue running now")
                    .register(registry);
            return n;
        });
    }

    @Override
    public long handlerStarted(String queue, String jobType, OffsetDateTime createdAt) {
        inFlight(queue).incrementAndGet();
        long lagMillis = Math.max(0, clock.millis() - createdAt.toInstant().toEpochMilli()); // clock skew reads as 0
        lagTimers
                .computeIfAbsent(
                        List.of(queue, jobType),
                        k -> Timer.builder(LAG)
                                .tag("queue", queue)
                                .tag("job.type", jobType)
                                .description("from the event's created_at to its handler's start")
                                .publishPercentileHistogram()
                                .minimumExpectedValue(Duration.ofMillis(1))
                                .maximumExpectedValue(Duration.ofMinutes(10))
                                .register(registry))
                .record(Duration.ofMillis(lagMillis));
        return System.nanoTime();
    }

    @Override
    public void handlerEnded(String queue, String jobType, long started) {
        long nanos = System.nanoTime() - started;
        inFlight(queue).decrementAndGet();
        handlerTimers
                .computeIfAbsent(
                        List.of(queue, jobType),
                        k -> Timer.builder(HANDLER)
                                .tag("queue", queue)
                                .tag("job.type", jobType)
                                .description("how long handlers ran")
                                .publishPercentileHistogram()
                                .minimumExpectedValue(Duration.ofMillis(1))
                                .maximumExpectedValue(Duration.ofMinutes(10))
                                .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void jobEnded(String queue, String jobType, Outcome outcome, @Nullable FailureReason reason) {
        String why = outcome == Outcome.FAILED && reason != null ? reason.code() : "none";
        counters.computeIfAbsent(
                        List.of(JOBS, queue, jobType, outcome.tag, why),
                        k -> Counter.builder(JOBS)
                                .tag("queue", queue)
                                .tag("job.type", jobType)
                                .tag("outcome", outcome.tag)
                                .tag("reason", why)
                                .description("handler runs by the outcome the worker writes")
                                .register(registry))
                .increment();
    }

    @Override
    public void dropped(String queue, Drop reason) {
        counters.computeIfAbsent(
                        List.of(DROPPED, queue, reason.tag),
                        k -> Counter.builder(DROPPED)
                                .tag("queue", queue)
                                .tag("reason", reason.tag)
                                .description("messages acknowledged or rejected without running a handler")
                                .register(registry))
                .increment();
    }
}
