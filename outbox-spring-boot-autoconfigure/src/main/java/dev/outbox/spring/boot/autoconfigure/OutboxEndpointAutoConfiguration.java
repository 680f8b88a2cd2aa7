package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.admin.OutboxAdmin;
import javax.sql.DataSource;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * The actuator endpoint {@code outbox} ({@link OutboxEndpoint}; {@link OutboxWritableEndpoint} with
 * {@code outbox.endpoint.write-enabled=true}) and the {@link OutboxAdmin} it uses, when the application
 * has actuator, outbox-relay and outbox-admin. The endpoint annotations and their condition have one
 * package on Boot 4.0 and 3.5, so this class serves both lines. Exposed like any endpoint
 * ({@code management.endpoints.web.exposure.include=outbox}).
 */
@AutoConfiguration(after = OutboxAutoConfiguration.class)
@ConditionalOnClass(
        name = {
            "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
            "dev.outbox.relay.OutboxStatus",
            "dev.outbox.admin.OutboxAdmin",
            "dev.outbox.api.Outbox"
        })
@ConditionalOnBean(DataSource.class)
public class OutboxEndpointAutoConfiguration {

    /** The operator's commands on the application's DataSource and the tables of {@code outbox.*}. */
    @Bean
    @ConditionalOnMissingBean
    OutboxAdmin outboxAdmin(DataSource dataSource, OutboxProperties properties) {
        // a requeue through the endpoint wakes the relays on the channel the application's recordings notify
        return OutboxAdmin.of(dataSource, properties.tables()).withNotifyChannel(properties.getNotifyChannel());
    }

    @Bean
    @ConditionalOnMissingBean(OutboxEndpoint.class)
    @ConditionalOnAvailableEndpoint
    @ConditionalOnProperty(
            prefix = "outbox.endpoint",
            name = "write-enabled",
            havingValue = "false",
            matchIfMissing = true)
    OutboxEndpoint outboxEndpoint(DataSource dataSource, OutboxAdmin admin) {
        return new OutboxEndpoint(dataSource, admin);
    }

    @Bean
    @ConditionalOnMissingBean(OutboxEndpoint.class)
    @ConditionalOnAvailableEndpoint
    @ConditionalOnProperty(prefix = "outbox.endpoint", name = "write-enabled", havingValue = "true")
    OutboxWritableEndpoint outboxWritableEndpoint(DataSource dataSource, OutboxAdmin admin) {
        return new OutboxWritableEndpoint(dataSource, admin);
    }
}
