package com.example.boot.kotlin

import com.example.boot.BootSample
import dev.outbox.relay.RetrySchedule
import dev.outbox.relay.Route
import dev.outbox.relay.Routes
import dev.outbox.testing.PostgresSchemaExtension
import dev.outbox.testing.RabbitExtension
import java.time.Duration
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.test.context.DynamicPropertyRegistry
import org.springframework.test.context.DynamicPropertySource

/**
 * The Kotlin sample as it starts in production: an order placed in its service runs its job in the
 * handler bean.
 */
@SpringBootTest(classes = [KotlinOrdersApplication::class])
class KotlinOrdersApplicationIT {

    companion object {
        @JvmField
        @RegisterExtension
        val db: PostgresSchemaExtension = PostgresSchemaExtension.empty()

        @JvmField @RegisterExtension val rabbit = RabbitExtension()

        val confirmations: String = rabbit.queue("confirmations")

        val routes: Routes =
            Routes.builder()
                .route(
                    "boot.kotlin.order.placed",
                    Route.job(
                        "send-confirmation",
                        confirmations,
                        RetrySchedule.seconds(1),
                        Duration.ofSeconds(60),
                    ),
                )
                .build()

        @JvmStatic
        @DynamicPropertySource
        fun connect(registry: DynamicPropertyRegistry) =
            BootSample.connect(registry, db, rabbit, confirmations)
    }

    @Autowired lateinit var orders: KotlinOrderService

    @Autowired lateinit var mailer: KotlinMailer

    @Test
    fun aPlacedOrderRunsItsJobWithTheDataClassReadBack() {
        orders.place("kt-1", "fay@example.com", listOf("tea", "scones"))
        BootSample.relayOnce(db, rabbit, routes)

        await().atMost(Duration.ofSeconds(20)).until {
            BootSample.status(db, "kt-1") == "completed"
        }
        assertThat(mailer.sent())
            .containsExactly(KotlinOrderPlaced("kt-1", "fay@example.com", listOf("tea", "scones")))
    }
}
