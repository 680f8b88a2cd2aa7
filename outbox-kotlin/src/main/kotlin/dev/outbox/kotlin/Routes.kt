@file:JvmName("KotlinRoutes")

package dev.outbox.kotlin

import dev.outbox.relay.JobRoute
import dev.outbox.relay.PublishRoute
import dev.outbox.relay.RetrySchedule
import dev.outbox.relay.Route
import dev.outbox.relay.Routes
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import kotlin.time.toKotlinDuration

/*
 * Routes in kotlin.time.Duration. Each function converts to java.time.Duration and calls the Java API,
 * whose checks apply unchanged: whole seconds, a retry delay of at most 30 days, a delivery timeout of
 * at most 7 days, at most 100 retries, each refused naming the field (`retryDelays[0] must be a whole
 * number of seconds, got PT1.5S (1500 ms)`).
 */

/**
 * A job route ([Route.job]): a job message to [queue] for the worker's handler of [jobType].
 *
 * ```kotlin
 * jobRoute("send-confirmation", "emails", retryDelays = listOf(5.seconds, 30.seconds, 2.minutes), deliveryTimeout = 5.minutes)
 * ```
 */
public fun jobRoute(
    jobType: String,
    queue: String,
    retryDelays: List<Duration>,
    deliveryTimeout: Duration,
): JobRoute = Route.job(jobType, queue, retryDelays.toJava(), deliveryTimeout.toJavaDuration())

/** A publish route ([Route.publish]): the event payload to [exchange] with [routingKey]. */
public fun publishRoute(
    name: String,
    exchange: String,
    routingKey: String,
    retryDelays: List<Duration>,
    deliveryTimeout: Duration,
): PublishRoute =
    Route.publish(
        name,
        exchange,
        routingKey,
        retryDelays.toJava(),
        deliveryTimeout.toJavaDuration(),
    )

/**
 * [Routes.Builder.job] in kotlin.time.Duration: an invalid field is refused naming the event type
 * as well.
 */
public fun Routes.Builder.job(
    eventType: String,
    jobType: String,
    queue: String,
    retryDelays: List<Duration>,
    deliveryTimeout: Duration,
): Routes.Builder =
    job(eventType, jobType, queue, retryDelays.toJava(), deliveryTimeout.toJavaDuration())

/**
 * [Routes.Builder.publish] in kotlin.time.Duration: an invalid field is refused naming the event
 * type as well.
 */
public fun Routes.Builder.publish(
    eventType: String,
    name: String,
    exchange: String,
    routingKey: String,
    retryDelays: List<Duration>,
    deliveryTimeout: Duration,
): Routes.Builder =
    publish(
        eventType,
        name,
        exchange,
        routingKey,
        retryDelays.toJava(),
        deliveryTimeout.toJavaDuration(),
    )

/**
 * [RetrySchedule] in kotlin.time.Duration. An explicit schedule is a plain list: `listOf(5.seconds,
 * 30.seconds)`.
 *
 * ```kotlin
 * RetryDelays.exponential(5.seconds, 3.0, 1.hours, 6) // 5 s, 15 s, 45 s, 135 s, 405 s, 1215 s
 * RetryDelays.fixed(30.seconds, 3)                   // 30 s, 30 s, 30 s
 * ```
 */
public object RetryDelays {

    /**
     * [RetrySchedule.exponential]: [retries] delays from [initial], times [factor] each, capped at
     * [cap].
     */
    public fun exponential(
        initial: Duration,
        factor: Double,
        cap: Duration,
        retries: Int,
    ): List<Duration> =
        RetrySchedule.exponential(initial.toJavaDuration(), factor, cap.toJavaDuration(), retries)
            .map { it.toKotlinDuration() }

    /** [RetrySchedule.fixed]: [retries] equal delays of [delay]. */
    public fun fixed(delay: Duration, retries: Int): List<Duration> =
        RetrySchedule.fixed(delay.toJavaDuration(), retries).map { it.toKotlinDuration() }
}

private fun List<Duration>.toJava(): List<java.time.Duration> = map { it.toJavaDuration() }
