package dev.outbox.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The {@code outbox} health of a Boot 4.0 application (spring-boot-health): the parts of
 * {@link OutboxHealthConfiguration} as one indicator, {@code DOWN} when a part is down. Off with
 * {@code management.health.outbox.enabled=false}. Boot 3.5's health has other packages; its indicator
 * is outbox-spring-boot3-health's.
 */
@AutoConfiguration(after = OutboxAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.boot.health.contributor.HealthIndicator", "dev.outbox.api.Outbox"})
public class OutboxHealthAutoConfiguration {

    /** Behind the class condition above: the condition of this annotation is Boot health's own class. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("outbox")
    @Import(OutboxHealthConfiguration.class)
    static class Indicator {

        @Bean(OutboxHealthConfiguration.INDICATOR_BEAN)
        @ConditionalOnMissingBean(name = OutboxHealthConfiguration.INDICATOR_BEAN)
        HealthIndicator outboxHealthIndicator(OutboxHealth health) {
            return () -> {
                OutboxHealthCheck.Result result = health.check();
                return (result.up() ? Health.up() : Health.down())
                        .withDetails(result.details())
                        .build();
            };
        }
    }
}
