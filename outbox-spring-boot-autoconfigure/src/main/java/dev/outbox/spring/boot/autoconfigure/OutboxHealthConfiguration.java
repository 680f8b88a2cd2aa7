package dev.outbox.spring.boot.autoconfigure;

import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The parts of the {@code outbox} health and the {@link OutboxHealth} that reads them, shared by the
 * health indicators of both Boot lines: each line's auto-configuration imports this class and adds
 * only its indicator. The {@code backlog} part needs outbox-relay (the status), the {@code worker}
 * part the auto-configured worker, the {@code relay} part the embedded relay.
 */
@Configuration(proxyBeanMethods = false)
public class OutboxHealthConfiguration {

    /** The bean name of the indicator on both lines: Boot names the contributor {@code outbox} after it. */
    public static final String INDICATOR_BEAN = "outboxHealthIndicator";

    @Bean
    @ConditionalOnMissingBean
    public OutboxHealth outboxHealth(ObjectProvider<OutboxHealthCheck> checks) {
        return new OutboxHealth(checks.orderedStream().toList());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.outbox.relay.OutboxStatus")
    @ConditionalOnBean(DataSource.class)
    static class Backlog {

        @Bean
        @ConditionalOnMissingBean(name = "outboxBacklogHealthCheck")
        OutboxHealthCheck outboxBacklogHealthCheck(DataSource dataSource, OutboxProperties properties) {
            return new BacklogHealthCheck(
                    dataSource,
                    properties.tables(),
                    properties.getHealth().getBacklogAgeThreshold(),
                    Clock.systemUTC());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.outbox.worker.OutboxWorker")
    @ConditionalOnBean(type = "dev.outbox.spring.boot.autoconfigure.OutboxWorkerLifecycle")
    static class Worker {

        @Bean
        @ConditionalOnMissingBean(name = "outboxWorkerHealthCheck")
        OutboxHealthCheck outboxWorkerHealthCheck(OutboxWorkerLifecycle lifecycle) {
            return new WorkerHealthCheck(lifecycle);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.outbox.relay.OutboxRelay")
    @ConditionalOnBean(type = "dev.outbox.spring.boot.autoconfigure.OutboxRelayLifecycle")
    static class Relay {

        @Bean
        @ConditionalOnMissingBean(name = "outboxRelayHealthCheck")
        OutboxHealthCheck outboxRelayHealthCheck(OutboxRelayLifecycle lifecycle) {
            return new RelayHealthCheck(lifecycle);
        }
    }
}
