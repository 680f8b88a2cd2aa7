package dev.outbox.relay;

import dev.outbox.delivery.amqp.AmqpNames;
import java.time.Duration;
import java.util.List;

/**
 * A {@link Route} that sends a job message to {@code queue}; a worker runs the handler of
 * {@code jobType} and reports the result. The checks are {@link Route}'s.
 *
 * @param jobType the stable name of the route's job
 * @param queue the queue of the job messages
 * @param retryDelays the pause before each retry, whole seconds, possibly empty
 * @param deliveryTimeout how long a dispatch may go without a result before it counts as lost
 * @param ordering whether the events of one ordering key are delivered in order ({@link #ordered()})
 */
public record JobRoute(
        String jobType, String queue, List<Duration> retryDelays, Duration deliveryTimeout, Ordering ordering)
        implements Route {

    public JobRoute {
        RouteChecks.stableName("jobType", jobType);
        RouteChecks.refuse("queue", AmqpNames.queueProblem(queue));
        retryDelays = RouteChecks.retryDelays(retryDelays);
        RouteChecks.deliveryTimeout(deliveryTimeout);
        RouteChecks.ordering(ordering);
    }

    /** An unordered job route. */
    public JobRoute(String jobType, String queue, List<Duration> retryDelays, Duration deliveryTimeout) {
        this(jobType, queue, retryDelays, deliveryTimeout, Ordering.UNORDERED);
    }

    /** This route, ordered per ordering key; a head that fails for good blocks its key ({@link Ordering#BLOCK}). */
    @Override
    public JobRoute ordered() {
        return ordered(Ordering.BLOCK);
    }

    /** This route with {@code ordering}. */
    @Override
    public JobRoute ordered(Ordering ordering) {
        return new JobRoute(jobType, queue, retryDelays, deliveryTimeout, ordering);
    }

    /** The job type. */
    @Override
    public String name() {
        return jobType;
    }
}
