package dev.outbox.kotlin

import dev.outbox.api.EventType
import dev.outbox.api.NewEvent
import dev.outbox.api.Outbox
import dev.outbox.relay.RetrySchedule
import dev.outbox.relay.Route
import dev.outbox.relay.Routes
import dev.outbox.schema.Tables.OUTBOX_EVENTS
import dev.outbox.schema.mapping.OutboxRenderMapping
import dev.outbox.testing.PostgresSchemaExtension
import java.math.BigDecimal
import java.time.Duration
import java.time.Instant
import java.util.UUID
import org.assertj.core.api.Assertions.assertThat
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension

// snippet:kotlin-event
@EventType("order.placed")
data class OrderPlaced(
    val orderId: Long,
    val total: BigDecimal,
    val lines: List<Line>,
    val placedAt: Instant,
) {
    data class Line(val sku: String, val quantity: Int)
}

// end-snippet

class RecordingKotlinIT {

    companion object {
        @JvmField
        @RegisterExtension
        val db: PostgresSchemaExtension = PostgresSchemaExtension.migrated()
    }

    private fun dsl(): DSLContext = DSL.using(db.dataSource(), SQLDialect.POSTGRES)

    @Test
    fun `records a data class inside a jOOQ transaction`() {
        val dsl = dsl()
        // snippet:kotlin-record
        val outbox = Outbox.builder().tables(db.tables()).build()

        val eventId: UUID =
            dsl.transactionResult { tx ->
                // ... the business change through tx.dsl() ...
                outbox.record(
                    tx.dsl(),
                    OrderPlaced(
                        42,
                        BigDecimal("99.90"),
                        listOf(OrderPlaced.Line("book", 2)),
                        Instant.now(),
                    ),
                )
            }
        // end-snippet

        val mapped =
            DSL.using(
                db.dataSource(),
                SQLDialect.POSTGRES,
                OutboxRenderMapping.settings(db.tables()),
            )
        val row = mapped.selectFrom(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(eventId)).fetchOne()
        assertThat(row).isNotNull
        assertThat(row!!.eventType).isEqualTo("order.placed")

        val back = outbox.serializer().deserialize(row.payload.data(), OrderPlaced::class.java)
        assertThat(back.lines).containsExactly(OrderPlaced.Line("book", 2))
        assertThat(back.total).isEqualByComparingTo("99.90")
    }

    @Test
    fun `records with an id of its own and trace headers`() {
        val outbox = Outbox.builder().tables(db.tables()).build()
        val id = UUID.randomUUID()
        val recorded =
            dsl().transactionResult { tx ->
                outbox.record(
                    tx.dsl(),
                    NewEvent.of(OrderPlaced(7, BigDecimal.ONE, emptyList(), Instant.EPOCH))
                        .withId(id)
                        .withOrderingKey("order-7")
                        .withTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
                )
            }
        assertThat(recorded).isEqualTo(id)
    }

    @Test
    fun `builds routes in Kotlin`() {
        // snippet:kotlin-routes
        val routes =
            Routes.builder()
                .route(
                    "order.placed",
                    Route.job(
                        "send-confirmation",
                        "emails",
                        RetrySchedule.seconds(5, 30, 120),
                        Duration.ofMinutes(5),
                    ),
                )
                .route(
                    "order.placed",
                    Route.publish(
                        "order-events",
                        "orders",
                        "order.placed",
                        RetrySchedule.exponential(
                            Duration.ofSeconds(5),
                            3.0,
                            Duration.ofHours(1),
                            6,
                        ),
                        Duration.ofMinutes(1),
                    ),
                )
                .build()
        // end-snippet
        assertThat(routes.of("order.placed")).hasSize(2)
        assertThat(routes.of("order.placed")[1].retryDelays())
            .isEqualTo(RetrySchedule.seconds(5, 15, 45, 135, 405, 1215))
    }
}
