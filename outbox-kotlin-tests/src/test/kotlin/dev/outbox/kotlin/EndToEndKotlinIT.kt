package dev.outbox.kotlin

import dev.outbox.api.EventType
import dev.outbox.api.Outbox
import dev.outbox.relay.OutboxRelay
import dev.outbox.relay.RetrySchedule
import dev.outbox.relay.Route
import dev.outbox.relay.Routes
import dev.outbox.schema.Tables.OUTBOX_DELIVERIES
import dev.outbox.schema.enums.OutboxDeliveryStatus
import dev.outbox.schema.mapping.OutboxRenderMapping
import dev.outbox.testing.PostgresSchemaExtension
import dev.outbox.testing.RabbitExtension
import dev.outbox.worker.JobContext
import dev.outbox.worker.OutboxWorker
import dev.outbox.worker.QueueSettings
import dev.outbox.worker.RetryableOutboxException
import java.math.BigDecimal
import java.time.Duration
import java.time.Instant
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension

/**
 * Record, relay and work, all from Kotlin: data-class events, lambda handlers, routes built in
 * Kotlin.
 */
class EndToEndKotlinIT {

    companion object {
        @JvmField
        @RegisterExtension
        val db: PostgresSchemaExtension = PostgresSchemaExtension.migrated()

        @JvmField @RegisterExtension val rabbit: RabbitExtension = RabbitExtension()
    }

    /** The tests share the class's schema: each starts from empty tables. */
    @BeforeEach fun clean() = db.truncate()

    private fun relay(routes: Routes): OutboxRelay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .amqpUri(rabbit.uri())
            .routes(routes)
            .tables(db.tables())
            .sleep(Duration.ofSeconds(1))
            .build()

    @Test
    fun `a Kotlin lambda handler completes the deliveries of recorded data classes`() {
        val emails = rabbit.queue("emails")
        val routes =
            Routes.builder()
                .route(
                    "order.placed",
                    Route.job(
                        "send-confirmation",
                        emails,
                        RetrySchedule.seconds(1),
                        Duration.ofSeconds(30),
                    ),
                )
                .build()
        val seen = ConcurrentHashMap<Long, JobContext>()
        val tries = AtomicInteger()

        // snippet:kotlin-worker
        val worker =
            OutboxWorker.builder()
                .dataSource(db.dataSource())
                .amqpUri(rabbit.uri())
                .tables(db.tables())
                .queue(emails, QueueSettings.of(4, 50))
                .handler("send-confirmation", OrderPlaced::class.java) { order, context ->
                    if (order.orderId == 2L && tries.incrementAndGet() == 1) {
                        throw RetryableOutboxException(
                            "mail server busy"
                        ) // retried after the route's delay
                    }
                    seen[order.orderId] = context
                }
                .build()
        // end-snippet

        val relay = relay(routes)

        worker.use {
            relay.use {
                worker.start()
                relay.start()
                val outbox = Outbox.builder().tables(db.tables()).build()
                val dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                for (id in 1L..3L) {
                    dsl.transaction { tx ->
                        outbox.record(
                            tx.dsl(),
                            OrderPlaced(id, BigDecimal.TEN, emptyList(), Instant.now()),
                        )
                    }
                }
                val mapped =
                    DSL.using(
                        db.dataSource(),
                        SQLDialect.POSTGRES,
                        OutboxRenderMapping.settings(db.tables()),
                    )
                await().atMost(Duration.ofSeconds(30)).until {
                    mapped.fetchCount(
                        OUTBOX_DELIVERIES,
                        OUTBOX_DELIVERIES.STATUS.eq(OutboxDeliveryStatus.completed),
                    ) == 3
                }
            }
        }
        assertThat(seen.keys).containsExactlyInAnyOrder(1L, 2L, 3L)
        assertThat(seen.getValue(2L).attempt()).isEqualTo(2)
        assertThat(seen.getValue(2L).lastAttempt()).isTrue()
        assertThat(seen.getValue(1L).lastAttempt()).isFalse()
    }

    @EventType("counter.renamed") data class Renamed(val n: Int)

    data class Strict(val number: Int, val label: String)

    data class Lenient(val label: String = "none", val n: Int)

    @Test
    fun `a missing non-null property fails the delivery, a default value runs the job`() {
        val queue = rabbit.queue("kotlin-missing")
        val routes =
            Routes.builder()
                .route(
                    "counter.renamed",
                    Route.job("strict", queue, listOf(), Duration.ofSeconds(30)),
                    Route.job("lenient", queue, listOf(), Duration.ofSeconds(30)),
                )
                .build()
        val strictCalls = CopyOnWriteArrayList<Strict>()
        val lenientCalls = CopyOnWriteArrayList<Lenient>()
        val worker =
            OutboxWorker.builder()
                .dataSource(db.dataSource())
                .amqpUri(rabbit.uri())
                .tables(db.tables())
                .queue(queue, QueueSettings.of(2, 10))
                .handler("strict", Strict::class.java) { event, _ -> strictCalls.add(event) }
                .handler("lenient", Lenient::class.java) { event, _ -> lenientCalls.add(event) }
                .build()
        val relay = relay(routes)
        val mapped =
            DSL.using(
                db.dataSource(),
                SQLDialect.POSTGRES,
                OutboxRenderMapping.settings(db.tables()),
            )

        worker.use {
            relay.use {
                worker.start()
                relay.start()
                val outbox = Outbox.builder().tables(db.tables()).build()
                DSL.using(db.dataSource(), SQLDialect.POSTGRES).transaction { tx ->
                    outbox.record(tx.dsl(), Renamed(1))
                }
                await().atMost(Duration.ofSeconds(30)).until {
                    mapped.fetchCount(
                        OUTBOX_DELIVERIES,
                        OUTBOX_DELIVERIES.STATUS.`in`(
                            OutboxDeliveryStatus.completed,
                            OutboxDeliveryStatus.failed,
                        ),
                    ) == 2
                }
            }
        }
        val strict =
            mapped
                .selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.JOB_TYPE.eq("strict"))
                .fetchSingle()
        assertThat(strict.status).isEqualTo(OutboxDeliveryStatus.failed)
        assertThat(strict.failureReason).isEqualTo("undeserializable_event")
        assertThat(strictCalls).isEmpty()
        val lenient =
            mapped
                .selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.JOB_TYPE.eq("lenient"))
                .fetchSingle()
        assertThat(lenient.status).isEqualTo(OutboxDeliveryStatus.completed)
        assertThat(lenientCalls).containsExactly(Lenient("none", 1))
    }
}
