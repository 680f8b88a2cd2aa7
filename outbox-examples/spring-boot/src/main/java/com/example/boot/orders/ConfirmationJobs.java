package com.example.boot.orders;

import dev.outbox.spring.boot.autoconfigure.OutboxJobHandler;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The job of a placed order: one handler bean, run by the starter's worker. */
@Configuration(proxyBeanMethods = false)
public class ConfirmationJobs {

    // snippet:boot-sample-handler
    @Bean
    OutboxJobHandler<OrderPlaced> sendConfirmation(
            Mailer mailer, @Value("${orders.confirmations-queue}") String queue) {
        return OutboxJobHandler.of(
                "send-confirmation", OrderPlaced.class, queue, (order, context) -> mailer.sendConfirmation(order));
    }
    // end-snippet
}
