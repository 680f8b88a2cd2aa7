package dev.outbox.kotlin

import dev.outbox.relay.InvalidRouteException
import dev.outbox.relay.RetrySchedule
import dev.outbox.relay.Route
import dev.outbox.relay.Routes
import java.time.Duration as JavaDuration
import kotlin.time.Duration.Companion.days
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.Test

class KotlinRoutesTest {

    @Test
    fun `builds the same routes as the Java API`() {
        assertThat(
                jobRoute(
                    "send-confirmation",
                    "emails",
                    listOf(5.seconds, 30.seconds, 2.minutes),
                    5.minutes,
                )
            )
            .isEqualTo(
                Route.job(
                    "send-confirmation",
                    "emails",
                    RetrySchedule.seconds(5, 30, 120),
                    JavaDuration.ofMinutes(5),
                )
            )
        assertThat(publishRoute("order-events", "orders", "order.placed", listOf(), 1.minutes))
            .isEqualTo(
                Route.publish(
                    "order-events",
                    "orders",
                    "order.placed",
                    listOf(),
                    JavaDuration.ofMinutes(1),
                )
            )
    }

    @Test
    fun `adds job and publish routes to a Routes builder`() {
        val routes =
            Routes.builder()
                .job("order.placed", "send-confirmation", "emails", listOf(5.seconds), 5.minutes)
                .publish(
                    "order.placed",
                    "order-events",
                    "orders",
                    "order.placed",
                    RetryDelays.fixed(10.seconds, 2),
                    1.minutes,
                )
                .build()

        assertThat(routes.of("order.placed"))
            .containsExactly(
                Route.job(
                    "send-confirmation",
                    "emails",
                    RetrySchedule.seconds(5),
                    JavaDuration.ofMinutes(5),
                ),
                Route.publish(
                    "order-events",
                    "orders",
                    "order.placed",
                    RetrySchedule.seconds(10, 10),
                    JavaDuration.ofMinutes(1),
                ),
            )
    }

    @Test
    fun `retry delays are the Java schedules in kotlin time`() {
        assertThat(RetryDelays.exponential(5.seconds, 3.0, 1.hours, 6))
            .containsExactly(
                5.seconds,
                15.seconds,
                45.seconds,
                135.seconds,
                405.seconds,
                1215.seconds,
            )
        assertThat(RetryDelays.fixed(30.seconds, 3))
            .containsExactly(30.seconds, 30.seconds, 30.seconds)
    }

    @Test
    fun `refuses what the Java API refuses, naming the field`() {
        assertThatThrownBy {
                jobRoute("send-confirmation", "emails", listOf(1500.milliseconds), 5.minutes)
            }
            .isInstanceOf(IllegalArgumentException::class.java)
            .hasMessageContaining("retryDelays[0]")
            .hasMessageContaining("1500 ms")
        assertThatThrownBy { jobRoute("send-confirmation", "emails", listOf(), 8.days) }
            .isInstanceOf(IllegalArgumentException::class.java)
            .hasMessageContaining("deliveryTimeout")
        assertThatThrownBy {
                Routes.builder()
                    .job("order.placed", "send-confirmation", "amq.emails", listOf(), 5.minutes)
            }
            .isInstanceOf(InvalidRouteException::class.java)
            .hasMessageContaining("order.placed")
            .hasMessageContaining("queue")
        assertThatThrownBy { RetryDelays.exponential(0.seconds, 2.0, 1.hours, 3) }
            .isInstanceOf(IllegalArgumentException::class.java)
            .hasMessageContaining("initial")
    }
}
