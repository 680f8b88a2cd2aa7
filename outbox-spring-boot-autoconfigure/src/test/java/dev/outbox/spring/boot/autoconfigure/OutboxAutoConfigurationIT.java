package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.api.EventType;
import dev.outbox.api.Outbox;
import dev.outbox.testing.PostgresSchemaExtension;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The auto-configuration in a real Boot application on the real PostgreSQL, with Boot's own
 * DataSource, jOOQ, Flyway and transaction manager. Written against what Boot 3.5 and 4.0 share, so
 * that the same source runs on both lines.
 */
class OutboxAutoConfigurationIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    private static ConfigurableApplicationContext context;

    @EventType("order.placed")
    record OrderPlaced(String orderId) {}

    /** The application's own transactional service: an order row and its event in one transaction. */
    // snippet:spring-boot-record
    static class Orders {
        private final DSLContext dsl;
        private final Outbox outbox;

        Orders(DSLContext dsl, Outbox outbox) {
            this.dsl = dsl;
            this.outbox = outbox;
        }

        @Transactional
        public void place(String orderId, boolean fail) {
            dsl.insertInto(DSL.table("orders")).set(DSL.field("id"), orderId).execute();
            outbox.record(dsl, new OrderPlaced(orderId));
            if (fail) {
                throw new IllegalStateException("payment refused");
            }
        }
    }
    // end-snippet

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Orders orders(DSLContext dsl, Outbox outbox) {
            return new Orders(dsl, outbox);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class AppWithItsOwnOutbox {
        static final Outbox OWN = Outbox.builder().notifications(false).build();

        @Bean
        Outbox myOutbox() {
            return OWN;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class AppWithMeters {
        @Bean
        io.micrometer.core.instrument.MeterRegistry meterRegistry() {
            return new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        }
    }

    static ConfigurableApplicationContext start(Class<?> app, String... extra) {
        return BootApps.start(db, app, extra);
    }

    @BeforeAll
    static void startApplication() {
        context = start(App.class);
    }

    @AfterAll
    static void stopApplication() {
        if (context != null) {
            context.close();
        }
    }

    private static DSLContext plain() {
        return DSL.using(db.dataSource(), org.jooq.SQLDialect.POSTGRES);
    }

    private static int count(String table, String condition) {
        return BootApps.count(db, table, condition);
    }

    @Test
    void recordsTheEventInTheTransactionalMethodsCommit() {
        context.getBean(Orders.class).place("o-commit", false);

        assertThat(count("orders", "id = 'o-commit'")).isEqualTo(1);
        assertThat(count("outbox_events", "payload->>'orderId' = 'o-commit' and event_type = 'order.placed'"))
                .isEqualTo(1);
    }

    @Test
    void aFailingTransactionalMethodLeavesNeitherTheOrderNorTheEvent() {
        Orders orders = context.getBean(Orders.class);

        assertThatThrownBy(() -> orders.place("o-rollback", true)).hasMessage("payment refused");

        assertThat(count("orders", "id = 'o-rollback'")).isZero();
        assertThat(count("outbox_events", "payload->>'orderId' = 'o-rollback'")).isZero();
    }

    @Test
    void recordsAndRollsBackInATransactionTemplate() {
        DSLContext dsl = context.getBean(DSLContext.class);
        Outbox outbox = context.getBean(Outbox.class);
        TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));

        tx.executeWithoutResult(status -> outbox.record(dsl, new OrderPlaced("t-commit")));
        tx.executeWithoutResult(status -> {
            outbox.record(dsl, new OrderPlaced("t-rollback"));
            status.setRollbackOnly();
        });

        assertThat(count("outbox_events", "payload->>'orderId' = 't-commit'")).isEqualTo(1);
        assertThat(count("outbox_events", "payload->>'orderId' = 't-rollback'")).isZero();
    }

    @Test
    void refusesToRecordOutsideASpringTransaction() {
        DSLContext dsl = context.getBean(DSLContext.class);
        Outbox outbox = context.getBean(Outbox.class);

        assertThatThrownBy(() -> outbox.record(dsl, new OrderPlaced("no-tx")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs the caller's open transaction");
        assertThat(count("outbox_events", "payload->>'orderId' = 'no-tx'")).isZero();
    }

    @Test
    void runsTheApplicationsMigrationsAndOursEachWithItsOwnHistory() {
        assertThat(count("flyway_schema_history", "script = 'V1__orders.sql' and success"))
                .isEqualTo(1);
        assertThat(count("flyway_schema_history", "script like '%outbox%'")).isZero();
        assertThat(count("outbox_flyway_history", "script = 'V1__outbox_tables.sql' and success"))
                .isEqualTo(1);
        assertThat(count("outbox_flyway_history", "script = 'V1__orders.sql'")).isZero();
    }

    @Test
    void runsOurMigrationsAfterTheApplicationsAndBeforeTheDslContextIsUsed() {
        Boolean afterTheApplications = plain().fetchOne("select (select min(installed_on) from " + db.schema()
                        + ".outbox_flyway_history where type = 'SQL') >= (select max(installed_on) from " + db.schema()
                        + ".flyway_schema_history where type = 'SQL')")
                .get(0, Boolean.class);
        assertThat(afterTheApplications).isTrue();
        String[] dependsOn =
                context.getBeanFactory().getBeanDefinition("dslContext").getDependsOn();
        assertThat(dependsOn).contains("outboxMigrationsInitializer");
    }

    @Test
    void anApplicationsOwnOutboxWins() {
        try (ConfigurableApplicationContext own = start(AppWithItsOwnOutbox.class)) {
            assertThat(own.getBeansOfType(Outbox.class)).containsOnlyKeys("myOutbox");
            assertThat(own.getBean(Outbox.class)).isSameAs(AppWithItsOwnOutbox.OWN);
        }
    }

    @Test
    void countsRecordedEventsInTheApplicationsMeterRegistry() {
        try (ConfigurableApplicationContext metered = start(AppWithMeters.class)) {
            DSLContext dsl = metered.getBean(DSLContext.class);
            Outbox outbox = metered.getBean(Outbox.class);
            new TransactionTemplate(metered.getBean(PlatformTransactionManager.class))
                    .executeWithoutResult(status -> outbox.record(dsl, new OrderPlaced("metered")));

            io.micrometer.core.instrument.MeterRegistry registry =
                    metered.getBean(io.micrometer.core.instrument.MeterRegistry.class);
            assertThat(registry.get("outbox.events.recorded")
                            .tag("type", "order.placed")
                            .counter()
                            .count())
                    .isEqualTo(1.0);
        }
    }

    @Test
    void outboxFlywayEnabledFalseRunsNoOutboxMigration() {
        try (ConfigurableApplicationContext off =
                start(App.class, "outbox.flyway.enabled=false", "spring.flyway.enabled=false")) {
            assertThat(off.getBeansOfType(OutboxMigrationsInitializer.class)).isEmpty();
            assertThat(off.getBeansOfType(OutboxTablesVerifier.class))
                    .hasSize(1); // the tables of the class's first start
        }
    }

    @Test
    void aBadTableNameFailsTheStartNamingTheProperty() {
        assertThatThrownBy(() -> start(App.class, "outbox.events-table=Bad-Name"))
                .hasStackTraceContaining("outbox.events-table = 'Bad-Name' is not valid");
    }

    @Test
    void aBadNotifyChannelFailsTheStartNamingTheProperty() {
        assertThatThrownBy(() -> start(App.class, "outbox.notify-channel=no spaces"))
                .hasStackTraceContaining("outbox.notify-channel = 'no spaces' is not valid");
    }
}
