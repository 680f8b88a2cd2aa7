package com.example.boot.kotlin

import dev.outbox.api.EventSerializer
import dev.outbox.api.EventType
import dev.outbox.api.Outbox
import dev.outbox.kotlin.KotlinEventSerializer
import dev.outbox.spring.boot.autoconfigure.OutboxJobHandler
import java.util.concurrent.CopyOnWriteArrayList
import org.jooq.DSLContext
import org.jooq.impl.DSL.field
import org.jooq.impl.DSL.table
import org.springframework.beans.factory.annotation.Value
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.runApplication
import org.springframework.context.annotation.Bean
import org.springframework.stereotype.Component
import org.springframework.stereotype.Service
import org.springframework.transaction.annotation.Transactional

/** The Java sample's orders service, in Kotlin: the same starter, the same beans. */
@SpringBootApplication(proxyBeanMethods = false)
open class KotlinOrdersApplication {
    /**
     * Data classes are read through their constructor: the recording side and the worker both use
     * it.
     */
    @Bean fun eventSerializer(): EventSerializer = KotlinEventSerializer

    @Bean
    fun sendConfirmation(
        mailer: KotlinMailer,
        @Value("\${orders.confirmations-queue}") queue: String,
    ) =
        OutboxJobHandler.of("send-confirmation", KotlinOrderPlaced::class.java, queue) { order, _ ->
            mailer.send(order)
        }
}

fun main(args: Array<String>) {
    runApplication<KotlinOrdersApplication>(*args)
}

@EventType("boot.kotlin.order.placed")
data class KotlinOrderPlaced(
    val orderId: String,
    val email: String,
    val lines: List<String> = emptyList(),
)

/**
 * Open, as Spring's transaction proxy needs (the kotlin-spring compiler plugin would do it for
 * every @Service).
 */
@Service
open class KotlinOrderService(private val dsl: DSLContext, private val outbox: Outbox) {
    @Transactional
    open fun place(orderId: String, email: String, lines: List<String> = emptyList()) {
        dsl.insertInto(table("orders"))
            .set(field("id"), orderId)
            .set(field("email"), email)
            .execute()
        outbox.record(dsl, KotlinOrderPlaced(orderId, email, lines))
    }
}

@Component
class KotlinMailer {
    private val sent = CopyOnWriteArrayList<KotlinOrderPlaced>()

    fun send(order: KotlinOrderPlaced) {
        sent += order
    }

    fun sent(): List<KotlinOrderPlaced> = sent.toList()
}
