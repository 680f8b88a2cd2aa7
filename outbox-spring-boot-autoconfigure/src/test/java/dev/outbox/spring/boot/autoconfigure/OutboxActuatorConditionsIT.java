package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.admin.OutboxAdmin;
import dev.outbox.relay.OutboxStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * When the actuator's outbox health and endpoint are there and when they back off, with
 * {@code ApplicationContextRunner} on a real DataSource. The health indicator is looked up by its bean
 * name: its type is Boot 4.0's or Boot 3.5's, and this source runs on both lines.
 */
class OutboxActuatorConditionsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(BootApps.outboxAutoConfigurations())
            .withBean(
                    DataSource.class,
                    () -> new DelegatingDataSource(db.dataSource())) // the context's close leaves the class's pool open
            .withPropertyValues(
                    "outbox.schema=" + db.schema(),
                    "outbox.flyway.enabled=false",
                    "outbox.worker.auto-startup=false",
                    "management.endpoints.web.exposure.include=*");

    record OrderPlaced(String orderId) {}

    @Configuration(proxyBeanMethods = false)
    static class OneHandler {
        @Bean
        OutboxJobHandler<OrderPlaced> sendConfirmation() {
            return OutboxJobHandler.of(
                    "send-confirmation", OrderPlaced.class, rabbit.queue("actuator-emails"), (order, context) -> {});
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RelayCheck {
        @Bean
        OutboxHealthCheck relayHealthCheck() {
            return new OutboxHealthCheck() {
                @Override
                public String name() {
                    return "relay";
                }

                @Override
                public Result check() {
                    return new Result(false, Map.of("running", false));
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnEndpoint {
        static final OutboxEndpoint OWN =
                new OutboxEndpoint(db.dataSource(), OutboxAdmin.of(db.dataSource(), db.tables()));

        @Bean
        OutboxEndpoint myEndpoint() {
            return OWN;
        }
    }

    @Test
    void withActuatorThereAreTheHealthIndicatorAndTheReadOnlyEndpoint() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context)
                    .hasBean(OutboxHealthConfiguration.INDICATOR_BEAN)
                    .hasSingleBean(OutboxHealth.class)
                    .hasSingleBean(OutboxAdmin.class)
                    .hasSingleBean(OutboxEndpoint.class)
                    .doesNotHaveBean(OutboxWritableEndpoint.class);
            OutboxHealthCheck.Result health =
                    context.getBean(OutboxHealth.class).check();
            assertThat(health.up()).isTrue();
            assertThat(health.details()).containsOnlyKeys("backlog");
        });
    }

    @Test
    void theAdminsRequeuesWakeTheRelaysOnTheApplicationsChannel() {
        runner.withPropertyValues("outbox.notify-channel=orders_outbox")
                .run(context -> assertThat(context.getBean(OutboxAdmin.class).notifyChannel())
                        .contains("orders_outbox"));
    }

    @Test
    void writeEnabledGivesTheWritableEndpoint() {
        runner.withPropertyValues("outbox.endpoint.write-enabled=true")
                .run(context -> assertThat(context)
                        .hasSingleBean(OutboxEndpoint.class)
                        .hasSingleBean(OutboxWritableEndpoint.class));
    }

    @Test
    void withoutActuatorTheApplicationStartsWithNeitherHealthNorEndpoint() {
        runner.withClassLoader(
                        new FilteredClassLoader("org.springframework.boot.actuate", "org.springframework.boot.health"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context)
                            .doesNotHaveBean(OutboxHealthConfiguration.INDICATOR_BEAN)
                            .doesNotHaveBean(OutboxHealth.class)
                            .doesNotHaveBean(OutboxEndpoint.class)
                            .doesNotHaveBean(OutboxAdmin.class);
                });
    }

    @Test
    void withoutOutboxRelayThereIsNoEndpointAndNoBacklogCheck() {
        runner.withClassLoader(new FilteredClassLoader(OutboxStatus.class)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(OutboxEndpoint.class).doesNotHaveBean("outboxBacklogHealthCheck");
            assertThat(context.getBean(OutboxHealth.class).check().details()).isEmpty();
        });
    }

    @Test
    void withoutOutboxAdminThereIsNoEndpoint() {
        runner.withClassLoader(new FilteredClassLoader(OutboxAdmin.class)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(OutboxEndpoint.class).hasBean("outboxBacklogHealthCheck");
        });
    }

    @Test
    void theHealthIndicatorIsOffWithItsManagementProperty() {
        runner.withPropertyValues("management.health.outbox.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context)
                    .doesNotHaveBean(OutboxHealthConfiguration.INDICATOR_BEAN)
                    .hasSingleBean(OutboxEndpoint.class);
        });
    }

    @Test
    void anEndpointTheApplicationDeclaresWins() {
        runner.withUserConfiguration(OwnEndpoint.class)
                .withPropertyValues("outbox.endpoint.write-enabled=true")
                .run(context -> {
                    assertThat(context.getBeansOfType(OutboxEndpoint.class)).containsOnlyKeys("myEndpoint");
                    assertThat(context.getBean(OutboxEndpoint.class)).isSameAs(OwnEndpoint.OWN);
                });
    }

    @Test
    void aWorkerThatDoesNotRunIsDown() {
        runner.withUserConfiguration(OneHandler.class).run(context -> {
            OutboxHealthCheck.Result health =
                    context.getBean(OutboxHealth.class).check();
            assertThat(health.up()).isFalse();
            assertThat(health.details()).containsOnlyKeys("backlog", "worker");
            assertThat(part(health, "worker")).containsEntry("status", "DOWN").containsEntry("running", false);
            assertThat(part(health, "backlog")).containsEntry("status", "UP");
        });
    }

    @Test
    void aRunningWorkerIsUpAndAStoppedOneDown() {
        runner.withUserConfiguration(OneHandler.class)
                .withPropertyValues("outbox.worker.auto-startup=true")
                .run(context -> {
                    OutboxHealth health = context.getBean(OutboxHealth.class);
                    assertThat(part(health.check(), "worker"))
                            .containsEntry("status", "UP")
                            .containsEntry("running", true);
                    assertThat(health.check().up()).isTrue();

                    context.getBean(OutboxWorkerLifecycle.class).stop();

                    assertThat(part(health.check(), "worker"))
                            .containsEntry("status", "DOWN")
                            .containsEntry("running", false);
                    assertThat(health.check().up()).isFalse();
                });
    }

    @Test
    void aCheckTheApplicationDeclaresIsAPartOfTheHealth() {
        runner.withUserConfiguration(RelayCheck.class).run(context -> {
            OutboxHealthCheck.Result health =
                    context.getBean(OutboxHealth.class).check();
            assertThat(health.up()).isFalse();
            assertThat(part(health, "relay")).containsEntry("status", "DOWN").containsEntry("running", false);
        });
    }

    /** One part's details. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> part(OutboxHealthCheck.Result health, String name) {
        return (Map<String, Object>) health.details().get(name);
    }

    @Test
    void aThresholdThatIsNotPositiveFailsTheStartNamingTheProperty() {
        runner.withPropertyValues("outbox.health.backlog-age-threshold=0s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("outbox.health.backlog-age-threshold must be positive, got PT0S"));
    }

    @Test
    void aBrokenCheckIsDownWithItsError() {
        // the start's own check of the tables, an application's bean here, looks at the class's schema
        runner.withBean(OutboxTablesVerifier.class, () -> new OutboxTablesVerifier(db.dataSource(), db.tables()))
                .withPropertyValues("outbox.schema=no_such_schema")
                .run(context -> {
                    OutboxHealthCheck.Result health =
                            context.getBean(OutboxHealth.class).check();
                    assertThat(health.up()).isFalse();
                    assertThat(part(health, "backlog"))
                            .containsEntry("status", "DOWN")
                            .containsKey("error");
                });
    }
}
