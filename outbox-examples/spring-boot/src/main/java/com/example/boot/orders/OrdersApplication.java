package com.example.boot.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An orders service on Spring Boot with the outbox starter and nothing else of ours: the
 * {@code Outbox} bean, the migrations and the worker of {@link ConfirmationJobs} come from the
 * auto-configuration; the database and the broker from {@code spring.datasource.*} and
 * {@code spring.rabbitmq.*}.
 */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }
}
