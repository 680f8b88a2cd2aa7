package com.example.boot.orders;

import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The routes of this application's events, for the relay that runs inside it with
 * {@code outbox.relay.enabled=true}; a deployment with the relay service gives that service the same
 * routes in its routes file, and this bean is then not read.
 */
@Configuration(proxyBeanMethods = false)
public class OrderRoutes {

    @Bean
    Routes confirmationRoutes(@Value("${orders.confirmations-queue}") String queue) {
        return Routes.builder()
                .route(
                        "boot.order.placed",
                        Route.job("send-confirmation", queue, RetrySchedule.seconds(5, 30, 120), Duration.ofMinutes(5)))
                .build();
    }
}
