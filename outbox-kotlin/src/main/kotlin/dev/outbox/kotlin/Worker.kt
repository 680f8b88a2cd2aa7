@file:JvmName("WorkerBuilders")

package dev.outbox.kotlin

import dev.outbox.worker.JobHandler
import dev.outbox.worker.OutboxWorker

/**
 * Runs [handler] for messages of [jobType], with the event read as [T]; the same as
 * `handler(jobType, T::class.java, handler)`.
 *
 * ```kotlin
 * OutboxWorker.builder()
 *     .serializer(KotlinEventSerializer)
 *     .handler<OrderPlaced>("send-confirmation") { order, context -> mailer.send(order, context.attempt()) }
 * ```
 *
 * The event is read as the class of [T]: type arguments (a `List<OrderPlaced>`) are not seen.
 */
public inline fun <reified T : Any> OutboxWorker.Builder.handler(
    jobType: String,
    handler: JobHandler<T>,
): OutboxWorker.Builder = this.handler(jobType, T::class.java, handler)
