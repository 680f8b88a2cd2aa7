// a package of its own, so that the helpers are imported as an application imports them
package dev.outbox.kotlin.usage

import com.fasterxml.jackson.databind.json.JsonMapper
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule
import dev.outbox.api.EventType
import dev.outbox.api.JacksonEventSerializer
import dev.outbox.api.Outbox
import dev.outbox.kotlin.KotlinEventSerializer
import dev.outbox.kotlin.RetryDelays
import dev.outbox.kotlin.handler
import dev.outbox.kotlin.job
import dev.outbox.kotlin.jobRoute
import dev.outbox.relay.OutboxRelay
import dev.outbox.relay.Routes
import dev.outbox.schema.Tables.OUTBOX_DELIVERIES
import dev.outbox.schema.Tables.OUTBOX_EVENTS
import dev.outbox.schema.enums.OutboxDeliveryStatus
import dev.outbox.schema.mapping.OutboxRenderMapping
import dev.outbox.testing.PostgresSchemaExtension
import dev.outbox.testing.RabbitExtension
import dev.outbox.worker.OutboxWorker
import dev.outbox.worker.QueueSettings
import dev.outbox.worker.RetryableOutboxException
import java.time.Instant
import java.time.LocalDate
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.time.Duration.Companion.seconds
import kotlin.time.toJavaDuration
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.jooq.DSLContext
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension

// snippet:kotlin-module-event
@EventType("parcel.shipped")
data class ParcelShipped(
    val parcelId: Long,
    val carrier: String?, // may be null or missing
    val shippedAt: Instant,
    val deliverBy: LocalDate?,
    val tags: List<String> = emptyList(), // a default for events recorded before the field existed
)

// end-snippet

/**
 * outbox-kotlin's helpers against the real services: KotlinEventSerializer, Kotlin routes, the
 * reified handler.
 */
class KotlinModuleIT {

    companion object {
        @JvmField
        @RegisterExtension
        val db: PostgresSchemaExtension = PostgresSchemaExtension.migrated()

        @JvmField @RegisterExtension val rabbit: RabbitExtension = RabbitExtension()
    }

    /** The tests share the class's schema: each starts from empty tables. */
    @BeforeEach fun clean() = db.truncate()

    private fun dsl(): DSLContext = DSL.using(db.dataSource(), SQLDialect.POSTGRES)

    private fun mapped(): DSLContext =
        DSL.using(db.dataSource(), SQLDialect.POSTGRES, OutboxRenderMapping.settings(db.tables()))

    private fun relay(routes: Routes): OutboxRelay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .amqpUri(rabbit.uri())
            .routes(routes)
            .tables(db.tables())
            .sleep(1.seconds.toJavaDuration())
            .build()

    private fun worker(
        queue: String,
        configure: OutboxWorker.Builder.() -> OutboxWorker.Builder,
    ): OutboxWorker =
        OutboxWorker.builder()
            .dataSource(db.dataSource())
            .amqpUri(rabbit.uri())
            .tables(db.tables())
            .queue(queue, QueueSettings.of(2, 10))
            .configure()
            .build()

    private fun awaitSettled(deliveries: Int) {
        await().atMost(30.seconds.toJavaDuration()).until {
            mapped()
                .fetchCount(
                    OUTBOX_DELIVERIES,
                    OUTBOX_DELIVERIES.STATUS.`in`(
                        OutboxDeliveryStatus.completed,
                        OutboxDeliveryStatus.failed,
                    ),
                ) == deliveries
        }
    }

    @Test
    fun `records a data class, routes it with a Kotlin route and completes it in a reified handler`() {
        val queue = rabbit.queue("parcels")
        // snippet:kotlin-module-routes
        val routes =
            Routes.builder()
                .job(
                    "parcel.shipped",
                    "notify-customer",
                    queue,
                    retryDelays = RetryDelays.fixed(1.seconds, 2),
                    deliveryTimeout = 30.seconds,
                )
                .build()
        // end-snippet
        val handled = CopyOnWriteArrayList<Pair<ParcelShipped, Int>>()
        // snippet:kotlin-module-worker
        val worker =
            OutboxWorker.builder()
                .dataSource(db.dataSource())
                .amqpUri(rabbit.uri())
                .tables(db.tables())
                .serializer(KotlinEventSerializer)
                .queue(queue, QueueSettings.of(4, 50))
                .handler<ParcelShipped>("notify-customer") { parcel, context ->
                    if (context.attempt() == 1) {
                        throw RetryableOutboxException("customer service busy") // retried after 1 s
                    }
                    handled.add(parcel to context.attempt())
                }
                .build()
        // end-snippet
        val shipped = ParcelShipped(17, null, Instant.parse("2026-12-01T10:15:30.123456Z"), null)

        worker.use {
            relay(routes).use { relay ->
                worker.start()
                relay.start()
                val dsl = dsl()
                // snippet:kotlin-module-record
                val outbox =
                    Outbox.builder().tables(db.tables()).serializer(KotlinEventSerializer).build()

                dsl.transaction { tx ->
                    // ... the business change through tx.dsl() ...
                    outbox.record(tx.dsl(), shipped)
                }
                // end-snippet
                awaitSettled(1)
            }
        }

        val delivery = mapped().selectFrom(OUTBOX_DELIVERIES).fetchSingle()
        assertThat(delivery.status).isEqualTo(OutboxDeliveryStatus.completed)
        assertThat(delivery.attempts).isEqualTo(2)
        assertThat(delivery.retryDelaysSeconds).containsExactly(1, 1)
        assertThat(delivery.deliveryTimeoutSeconds).isEqualTo(30)
        assertThat(handled).containsExactly(shipped to 2)
        val payload =
            mapped().select(OUTBOX_EVENTS.PAYLOAD).from(OUTBOX_EVENTS).fetchSingle().value1().data()
        assertThat(payload)
            .contains("\"shippedAt\": \"2026-12-01T10:15:30.123456Z\"", "\"carrier\": null")
    }

    @Test
    fun `a worker without the Kotlin module fails a data class undeserializable_event, KotlinEventSerializer runs it`() {
        val plainQueue = rabbit.queue("parcels-plain")
        val kotlinQueue = rabbit.queue("parcels-kotlin")
        val routes =
            Routes.builder()
                .route(
                    "parcel.shipped",
                    jobRoute("plain", plainQueue, listOf(), 30.seconds),
                    jobRoute("kotlin", kotlinQueue, listOf(), 30.seconds),
                )
                .build()
        // what a worker had before outbox-kotlin when jackson-module-kotlin was missing: Jackson
        // with java.time only
        val withoutKotlin =
            JacksonEventSerializer.using(JsonMapper.builder().addModule(JavaTimeModule()).build())
        val plainCalls = CopyOnWriteArrayList<ParcelShipped>()
        val kotlinCalls = CopyOnWriteArrayList<ParcelShipped>()
        val plain =
            worker(plainQueue) {
                serializer(withoutKotlin).handler<ParcelShipped>("plain") { parcel, _ ->
                    plainCalls.add(parcel)
                }
            }
        val kotlin =
            worker(kotlinQueue) {
                serializer(KotlinEventSerializer).handler<ParcelShipped>("kotlin") { parcel, _ ->
                    kotlinCalls.add(parcel)
                }
            }
        val shipped =
            ParcelShipped(
                18,
                "dhl",
                Instant.parse("2026-12-01T10:15:30Z"),
                LocalDate.parse("2026-12-04"),
                listOf("fragile"),
            )

        plain.use {
            kotlin.use {
                relay(routes).use { relay ->
                    plain.start()
                    kotlin.start()
                    relay.start()
                    val outbox =
                        Outbox.builder()
                            .tables(db.tables())
                            .serializer(KotlinEventSerializer)
                            .build()
                    dsl().transaction { tx -> outbox.record(tx.dsl(), shipped) }
                    awaitSettled(2)
                }
            }
        }

        val byJob = mapped().selectFrom(OUTBOX_DELIVERIES).fetch().associateBy { it.jobType }
        assertThat(byJob.getValue("plain").status).isEqualTo(OutboxDeliveryStatus.failed)
        assertThat(byJob.getValue("plain").failureReason).isEqualTo("undeserializable_event")
        assertThat(plainCalls).isEmpty()
        assertThat(byJob.getValue("kotlin").status).isEqualTo(OutboxDeliveryStatus.completed)
        assertThat(kotlinCalls).containsExactly(shipped)
    }
}
