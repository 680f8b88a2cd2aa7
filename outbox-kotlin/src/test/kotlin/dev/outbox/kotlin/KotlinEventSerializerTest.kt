package dev.outbox.kotlin

import com.fasterxml.jackson.databind.json.JsonMapper
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule
import dev.outbox.api.EventSerializer
import dev.outbox.api.JacksonEventSerializer
import dev.outbox.api.OutboxException
import java.math.BigDecimal
import java.time.Instant
import java.time.LocalDate
import java.time.OffsetDateTime
import java.time.ZoneOffset
import kotlin.time.Duration
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

class KotlinEventSerializerTest {

    data class Shipped(
        val orderId: Long,
        val carrier: String?,
        val shippedAt: Instant,
        val deliverBy: LocalDate?,
        val promisedAt: OffsetDateTime,
        val total: BigDecimal,
        val note: String = "none",
    )

    data class Tagged(val tags: List<String>)

    data class MaybeTagged(val tags: List<String?>)

    data class Counted(val counts: Map<String, Int>)

    data class Timed(val window: Duration)

    @Test
    fun `prepares the reading of a class as Jackson's serializer does, not with the interface's no-op`() {
        // `by` delegation leaves out EventSerializer.prepare, a Java default method: the worker's
        // start would prepare nothing
        assertThat(
                KotlinEventSerializer::class
                    .java
                    .getMethod("prepare", Class::class.java)
                    .declaringClass
            )
            .isEqualTo(KotlinEventSerializer::class.java)
        KotlinEventSerializer.prepare(Shipped::class.java)
        KotlinEventSerializer.prepare(
            Runnable::class.java
        ) // a class it cannot read: nothing thrown
    }

    @Test
    fun `round-trips a data class with nullable fields and java time values`() {
        val event =
            Shipped(
                7,
                null,
                Instant.parse("2026-12-01T10:15:30.123456Z"),
                null,
                OffsetDateTime.of(2026, 12, 3, 9, 0, 0, 0, ZoneOffset.ofHours(2)),
                BigDecimal("10.50"),
            )

        val json = KotlinEventSerializer.serialize("order.shipped", event)

        assertThat(json)
            .contains(
                "\"shippedAt\":\"2026-12-01T10:15:30.123456Z\"",
                "\"promisedAt\":\"2026-12-03T09:00:00+02:00\"",
                "\"carrier\":null",
                "\"total\":10.50",
            )
        assertThat(KotlinEventSerializer.deserialize<Shipped>(json)).isEqualTo(event)
    }

    @Test
    fun `a missing nullable property reads as null and a missing one with a default takes it`() {
        val json =
            """{"orderId":1,"shippedAt":"2026-12-01T10:15:30Z","promisedAt":"2026-12-01T10:15:30Z","total":1}"""

        val read = KotlinEventSerializer.deserialize<Shipped>(json)

        assertThat(read.carrier).isNull()
        assertThat(read.deliverBy).isNull()
        assertThat(read.note).isEqualTo("none")
    }

    @Test
    fun `a missing or null non-null property is an error naming its path`() {
        assertThatThrownBy { KotlinEventSerializer.deserialize<Shipped>("""{"orderId":1}""") }
            .isInstanceOf(OutboxException::class.java)
            .hasMessageContaining(Shipped::class.java.name)
        assertThatThrownBy { KotlinEventSerializer.deserialize<Tagged>("""{"tags":null}""") }
            .isInstanceOf(OutboxException::class.java)
    }

    @Test
    fun `a null inside a collection of a non-null type is refused, where the default lets it in`() {
        assertThatThrownBy { KotlinEventSerializer.deserialize<Tagged>("""{"tags":["a",null]}""") }
            .isInstanceOf(OutboxException::class.java)
            .hasMessageContaining("at \$.tags")
        assertThatThrownBy {
                KotlinEventSerializer.deserialize<Counted>("""{"counts":{"a":null}}""")
            }
            .isInstanceOf(OutboxException::class.java)
        // what the default serializer (jackson-module-kotlin found on the class path, as it is)
        // does
        assertThat(
                EventSerializer.jackson()
                    .deserialize("""{"tags":["a",null]}""", Tagged::class.java)
                    .tags
            )
            .containsExactly("a", null)
    }

    @Test
    fun `a null inside a collection of a nullable type is kept`() {
        assertThat(KotlinEventSerializer.deserialize<MaybeTagged>("""{"tags":["a",null]}""").tags)
            .containsExactly("a", null)
    }

    @Test
    fun `writes a kotlin time Duration as ISO-8601 text and reads it back`() {
        val json = KotlinEventSerializer.serialize("window.set", Timed(90.seconds))

        assertThat(json).isEqualTo("""{"window":"PT1M30S"}""")
        assertThat(KotlinEventSerializer.deserialize<Timed>(json)).isEqualTo(Timed(90.seconds))
        assertThat(KotlinEventSerializer.deserialize<Timed>("""{"window":"PT5M"}""").window)
            .isEqualTo(5.minutes)
    }

    @Test
    fun `keeps the refusals of the default serializer`() {
        data class Scored(val score: Double)

        assertThatThrownBy { KotlinEventSerializer.serialize("score.set", Scored(Double.NaN)) }
            .hasMessageContaining("\$.score")
    }

    @Test
    fun `without the Kotlin module a data class cannot be read`() {
        // the failure mode outbox-kotlin removes: a mapper without jackson-module-kotlin
        val withoutKotlin =
            JacksonEventSerializer.using(JsonMapper.builder().addModule(JavaTimeModule()).build())

        assertThatThrownBy { withoutKotlin.deserialize<Tagged>("""{"tags":["a"]}""") }
            .isInstanceOf(OutboxException::class.java)
            .hasMessageContaining("InvalidDefinitionException")
        assertThat(KotlinEventSerializer.deserialize<Tagged>("""{"tags":["a"]}"""))
            .isEqualTo(Tagged(listOf("a")))
    }

    @Test
    fun `its module goes into a serializer with modules of one's own`() {
        val serializer = JacksonEventSerializer.withModules(KotlinEventSerializer.kotlinModule())

        assertThatThrownBy { serializer.deserialize<Tagged>("""{"tags":["a",null]}""") }
            .isInstanceOf(OutboxException::class.java)
        assertThat(serializer.serialize("window.set", Timed(5.seconds)))
            .isEqualTo("""{"window":"PT5S"}""")
    }

    @Test
    fun `a null inside a non-null list is refused when it is recorded, naming its index`() {
        // Java code (or a cast) can put a null where Kotlin says none can be: the worker would
        // refuse it for good
        @Suppress("UNCHECKED_CAST") val tags = java.util.Arrays.asList("a", null) as List<String>

        assertThatThrownBy { KotlinEventSerializer.serialize("tagged", Tagged(tags)) }
            .isInstanceOf(dev.outbox.api.EventEncodingException::class.java)
            .hasMessageStartingWith("cannot record event of type 'tagged': \$.tags[1] is null")
        assertThat(KotlinEventSerializer.serialize("tagged", MaybeTagged(listOf("a", null))))
            .isEqualTo("""{"tags":["a",null]}""")
    }
}
