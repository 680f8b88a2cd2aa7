@file:JvmName("EventSerializers")

package dev.outbox.kotlin

import com.fasterxml.jackson.module.kotlin.KotlinFeature
import com.fasterxml.jackson.module.kotlin.KotlinModule
import dev.outbox.api.EventSerializer
import dev.outbox.api.JacksonEventSerializer

/**
 * The outbox's serializer for Kotlin events: [EventSerializer.jackson] with jackson-module-kotlin
 * registered and set up as below. Give it to both ends, so that what is recorded is read the same
 * way:
 * ```kotlin
 * val outbox = Outbox.builder().serializer(KotlinEventSerializer).build()
 * val worker = OutboxWorker.builder().serializer(KotlinEventSerializer) /* ... */ .build()
 * ```
 * - **Data classes** are read through their primary constructor. A missing non-null property
 *   without a default value is an error (the delivery fails `undeserializable_event` and the
 *   handler is not called); a property with a default value takes it; a nullable property reads as
 *   `null`.
 * - **Nullability** holds inside collections too: `null` in a `List<String>` or as a value of a
 *   `Map<String, Int>` is refused when read, while a `List<String?>` keeps it.
 * - **`kotlin.time.Duration`** is written as ISO-8601 text (`"PT30S"`), like `java.time.Duration`,
 *   not as the number the value class holds inside.
 * - Everything else is [JacksonEventSerializer]'s: java.time as ISO-8601 text, the refusals of what
 *   `jsonb` or a reader cannot keep, unknown properties ignored.
 */
public object KotlinEventSerializer : EventSerializer by kotlinJackson {

    /**
     * Jackson's [EventSerializer.prepare]: delegation by `by` leaves out an interface's Java
     * default methods.
     */
    override fun prepare(type: Class<*>): Unit = kotlinJackson.prepare(type)

    /**
     * A new Jackson module set up as this serializer's, for a serializer with modules of your own:
     * `JacksonEventSerializer.withModules(KotlinEventSerializer.kotlinModule(), MoneyModule())`.
     */
    public fun kotlinModule(): KotlinModule = outboxKotlinModule()

    override fun toString(): String = "KotlinEventSerializer"
}

private val kotlinJackson: JacksonEventSerializer =
    JacksonEventSerializer.withModules(outboxKotlinModule())

private fun outboxKotlinModule(): KotlinModule =
    KotlinModule.Builder()
        .enable(KotlinFeature.NewStrictNullChecks)
        .enable(KotlinFeature.UseJavaDurationConversion)
        .build()

/**
 * The event of class [T] from the JSON text of its payload:
 * `serializer.deserialize<OrderPlaced>(json)`.
 */
public inline fun <reified T : Any> EventSerializer.deserialize(json: String): T =
    deserialize(json, T::class.java)
