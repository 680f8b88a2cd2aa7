package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.api.EventSerializer;
import dev.outbox.api.Outbox;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.Routes;
import dev.outbox.spring.OutboxEventListener;
import dev.outbox.worker.OutboxWorker;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The outbox in a Spring Boot application: an {@link Outbox} bean, to record with Boot's
 * {@code DSLContext} inside {@code @Transactional} methods, and the outbox migrations
 * ({@link OutboxMigrationsInitializer}; with {@code outbox.flyway.enabled=false} the check that the tables
 * are there instead, {@link OutboxTablesVerifier}), and the worker of
 * the {@link OutboxJobHandler} beans ({@link OutboxWorkerLifecycle}), and the listener that records
 * Spring application events of {@code @OutboxEvent} classes ({@link OutboxEventListener}), and, with
 * {@code outbox.relay.enabled=true}, the relay ({@link OutboxRelayLifecycle}). Every bean backs
 * off when the application declares its own. The classes that moved between Boot 3.5 and 4.0 are
 * named by both names.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.jooq.autoconfigure.JooqAutoConfiguration",
            "org.springframework.boot.autoconfigure.jooq.JooqAutoConfiguration",
            "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
            "org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration"
        })
@ConditionalOnClass(Outbox.class)
@EnableConfigurationProperties(OutboxProperties.class)
public class OutboxAutoConfiguration {

    /**
     * The outbox of {@code outbox.*}: tables, NOTIFY channel, notifications on or off; its meters in
     * the application's {@code MeterRegistry} when there is one.
     */
    @Bean
    @ConditionalOnMissingBean
    public Outbox outbox(OutboxProperties properties, BeanFactory beans) {
        return properties
                .applyTo(OutboxTracing.bind(OutboxMeters.bind(Outbox.builder(), beans), beans))
                .build();
    }

    /**
     * Records the application events of {@code @OutboxEvent} classes, published inside a transaction,
     * through the {@link Outbox} on Boot's {@code DSLContext}; none with {@code outbox.events.enabled=false},
     * nor without one {@code DSLContext} to record with.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnSingleCandidate(DSLContext.class)
    @ConditionalOnProperty(prefix = "outbox.events", name = "enabled", matchIfMissing = true)
    static class Events {

        @Bean
        @ConditionalOnMissingBean
        OutboxEventListener outboxEventListener(Outbox outbox, DSLContext dsl) {
            return new OutboxEventListener(outbox, dsl);
        }
    }

    /** The outbox migrations, as a database initializer. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.flywaydb.core.Flyway")
    @ConditionalOnBean(DataSource.class)
    @ConditionalOnProperty(prefix = "outbox.flyway", name = "enabled", matchIfMissing = true)
    static class Migrations {

        @Bean
        @ConditionalOnMissingBean
        OutboxMigrationsInitializer outboxMigrationsInitializer(DataSource dataSource, OutboxProperties properties) {
            return new OutboxMigrationsInitializer(dataSource, properties.tables());
        }
    }

    /**
     * With {@code outbox.flyway.enabled=false}, the check that the application's own migrations made the
     * outbox tables, up to date; it needs outbox-relay (the starter brings it).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.outbox.relay.OutboxRelay")
    @ConditionalOnBean(DataSource.class)
    @ConditionalOnProperty(prefix = "outbox.flyway", name = "enabled", havingValue = "false")
    static class TablesCheck {

        @Bean
        @ConditionalOnMissingBean
        OutboxTablesVerifier outboxTablesVerifier(DataSource dataSource, OutboxProperties properties) {
            return new OutboxTablesVerifier(dataSource, properties.tables());
        }
    }

    /**
     * The worker of the {@link OutboxJobHandler} beans, started and stopped with the context; none
     * without a handler bean, or with {@code outbox.worker.enabled=false}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.outbox.worker.OutboxWorker")
    @ConditionalOnBean({OutboxJobHandler.class, DataSource.class})
    @ConditionalOnProperty(prefix = "outbox.worker", name = "enabled", matchIfMissing = true)
    static class Worker {

        @Bean
        @ConditionalOnMissingBean
        OutboxWorker outboxWorker(
                ListableBeanFactory beans,
                DataSource dataSource,
                OutboxProperties properties,
                ObjectProvider<EventSerializer> serializer,
                Environment environment) {
            OutboxWorker.Builder builder = WorkerSettings.builder(
                    beans,
                    dataSource,
                    properties,
                    serializer.getIfAvailable(EventSerializer::jackson),
                    Binder.get(environment));
            return OutboxTracing.bind(OutboxMeters.bind(builder, beans), beans).build();
        }

        @Bean
        @ConditionalOnMissingBean
        OutboxWorkerLifecycle outboxWorkerLifecycle(OutboxWorker worker, OutboxProperties properties) {
            return new OutboxWorkerLifecycle(worker, properties.getWorker().isAutoStartup());
        }
    }

    /**
     * The relay inside the application, started and stopped with the context; only with
     * {@code outbox.relay.enabled=true}. Its routes: {@code outbox.relay.routes-file} and the
     * {@link Routes} beans. Several instances of the application relay side by side, as several relay
     * services do.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.outbox.relay.OutboxRelay")
    @ConditionalOnBean(DataSource.class)
    @ConditionalOnProperty(prefix = "outbox.relay", name = "enabled", havingValue = "true")
    static class Relay {

        @Bean
        @ConditionalOnMissingBean
        OutboxRelay outboxRelay(
                ListableBeanFactory beans,
                DataSource dataSource,
                OutboxProperties properties,
                Environment environment) {
            OutboxRelay.Builder builder = EmbeddedRelay.builder(
                    dataSource,
                    properties,
                    beans.getBeansOfType(Routes.class),
                    Binder.get(environment),
                    beans.getBeanProvider(SslBundles.class).getIfAvailable());
            return EmbeddedRelay.build(OutboxMeters.bind(builder, beans));
        }

        @Bean
        @ConditionalOnMissingBean
        OutboxRelayLifecycle outboxRelayLifecycle(OutboxRelay relay, OutboxProperties properties) {
            return new OutboxRelayLifecycle(relay, properties.getRelay().isAutoStartup());
        }
    }

    /** {@code outbox.relay.enabled=true} without outbox-relay: the start fails saying what to add, rather than run no relay. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("dev.outbox.relay.OutboxRelay")
    @ConditionalOnProperty(prefix = "outbox.relay", name = "enabled", havingValue = "true")
    static class RelayMissing {

        @Bean
        Object outboxRelayMissing() {
            throw new OutboxPropertyException(
                    "outbox.relay.enabled",
                    "outbox.relay.enabled=true, but outbox-relay is not on the class path:"
                            + " add the dependency dev.outbox:outbox-relay (the starter has it)");
        }
    }
}
