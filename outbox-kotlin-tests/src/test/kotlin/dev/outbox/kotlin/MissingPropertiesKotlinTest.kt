package dev.outbox.kotlin

import dev.outbox.api.EventSerializer
import dev.outbox.api.OutboxException
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

/**
 * The reading rule for Kotlin data classes: a missing non-null property without a default is an
 * error.
 */
class MissingPropertiesKotlinTest {

    data class Named(val name: String)

    data class Counted(val count: Int)

    data class Defaulted(val name: String = "anonymous", val count: Int = 7)

    data class Optional(val name: String, val note: String?)

    private val serializer = EventSerializer.jackson()

    @Test
    fun `a missing non-null property is an error`() {
        assertThatThrownBy { serializer.deserialize("""{"n":1}""", Named::class.java) }
            .isInstanceOf(OutboxException::class.java)
        assertThatThrownBy { serializer.deserialize("""{"name":null}""", Named::class.java) }
            .isInstanceOf(OutboxException::class.java)
    }

    @Test
    fun `a missing Int is an error, not zero`() {
        assertThatThrownBy { serializer.deserialize("""{"n":1}""", Counted::class.java) }
            .isInstanceOf(OutboxException::class.java)
    }

    @Test
    fun `a missing property with a default value takes the default`() {
        assertThat(serializer.deserialize("""{"n":1}""", Defaulted::class.java))
            .isEqualTo(Defaulted("anonymous", 7))
    }

    @Test
    fun `a missing or null nullable property reads as null`() {
        assertThat(serializer.deserialize("""{"name":"a"}""", Optional::class.java))
            .isEqualTo(Optional("a", null))
        assertThat(serializer.deserialize("""{"name":"a","note":null}""", Optional::class.java))
            .isEqualTo(Optional("a", null))
    }

    @Test
    fun `unknown properties are ignored`() {
        assertThat(serializer.deserialize("""{"name":"a","addedLater":true}""", Named::class.java))
            .isEqualTo(Named("a"))
    }
}
