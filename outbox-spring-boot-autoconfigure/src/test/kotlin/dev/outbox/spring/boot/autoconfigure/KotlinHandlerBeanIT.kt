package dev.outbox.spring.boot.autoconfigure

import dev.outbox.api.EventType
import dev.outbox.api.Outbox
import dev.outbox.relay.OutboxRelay
import dev.outbox.relay.RetrySchedule
import dev.outbox.relay.Route
import dev.outbox.relay.Routes
import dev.outbox.testing.PostgresSchemaExtension
import dev.outbox.testing.RabbitExtension
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import javax.sql.DataSource
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.jooq.SQLDialect
import org.jooq.impl.DSL
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.jdbc.datasource.DelegatingDataSource

/**
 * The Kotlin form of a handler bean, as docs/spring-boot.md shows it, run by the auto-configured
 * worker on the real PostgreSQL and RabbitMQ (here through `outbox.worker.uri`).
 */
class KotlinHandlerBeanIT {

    companion object {
        @JvmField
        @RegisterExtension
        val db: PostgresSchemaExtension = PostgresSchemaExtension.migrated()

        @JvmField @RegisterExtension val rabbit: RabbitExtension = RabbitExtension()

        val emails: String = rabbit.queue("kotlin-emails")
    }

    @JvmRecord @EventType("kotlin.order.placed") data class OrderPlaced(val orderId: String)

    class Mailer {
        val sent: MutableList<String> = CopyOnWriteArrayList()

        fun send(order: OrderPlaced) {
            sent += order.orderId
        }
    }

    @Configuration(proxyBeanMethods = false)
    class JobService {
        @Bean fun mailer() = Mailer()

        @Bean
        fun sendConfirmation(mailer: Mailer) =
            OutboxJobHandler.of("send-confirmation", OrderPlaced::class.java, emails) { order, _ ->
                mailer.send(order)
            }
    }

    private fun relayOnce() {
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .connectionFactory(rabbit.connectionFactory())
            .tables(db.tables())
            .routes(
                Routes.builder()
                    .route(
                        "kotlin.order.placed",
                        Route.job(
                            "send-confirmation",
                            emails,
                            RetrySchedule.seconds(1),
                            Duration.ofSeconds(60),
                        ),
                    )
                    .build()
            )
            .notifications(false)
            .build()
            .use { it.runOnce() }
    }

    private fun status(orderId: String): String? =
        DSL.using(db.dataSource(), SQLDialect.POSTGRES)
            .fetchValue(
                "select d.status::text from " +
                    db.schema() +
                    ".outbox_deliveries d join " +
                    db.schema() +
                    ".outbox_events e on e.id = d.event_id where e.payload->>'orderId' = ?",
                orderId,
            ) as String?

    @Test
    fun aKotlinHandlerBeanRunsAndCompletesTheJobOfARecordedEvent() {
        ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OutboxAutoConfiguration::class.java))
            .withBean(DataSource::class.java, { DelegatingDataSource(db.dataSource()) })
            .withPropertyValues(
                "outbox.schema=" + db.schema(),
                "outbox.flyway.enabled=false",
                "outbox.worker.uri=" + rabbit.uri(),
            )
            .withUserConfiguration(JobService::class.java)
            .run { context ->
                val outbox = context.getBean(Outbox::class.java)
                DSL.using(db.dataSource(), SQLDialect.POSTGRES).transaction { tx ->
                    outbox.record(tx.dsl(), OrderPlaced("k-1"))
                }
                relayOnce()

                await().atMost(Duration.ofSeconds(20)).until { status("k-1") == "completed" }
                assertThat(context.getBean(Mailer::class.java).sent).containsExactly("k-1")
            }
    }
}
