package dev.outbox.spring.boot3.health;

import dev.outbox.spring.boot.autoconfigure.OutboxAutoConfiguration;
import dev.outbox.spring.boot.autoconfigure.OutboxHealth;
import dev.outbox.spring.boot.autoconfigure.OutboxHealthCheck;
import dev.outbox.spring.boot.autoconfigure.OutboxHealthConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The {@code outbox} health of a Boot 3.5 application (org.springframework.boot.actuate.health): the
 * parts of {@link OutboxHealthConfiguration} as one indicator, {@code DOWN} when a part is down, as the
 * Boot 4.0 indicator of outbox-spring-boot-autoconfigure. On Boot 4.0 the class it needs is absent
 * and it backs off. Off with {@code management.health.outbox.enabled=false}.
 */
@AutoConfiguration(after = OutboxAutoConfiguration.class)
@ConditionalOnClass(name = {"org.springframework.boot.actuate.health.HealthIndicator", "dev.outbox.api.Outbox"})
public class OutboxBoot3HealthAutoConfiguration {

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
