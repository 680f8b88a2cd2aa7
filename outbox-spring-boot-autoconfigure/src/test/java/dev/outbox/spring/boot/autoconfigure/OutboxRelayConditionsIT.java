package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Routes;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * When the auto-configuration runs the relay inside the application and when it backs off, and how a
 * bad {@code outbox.relay.*} setting fails the start, with {@code ApplicationContextRunner} on the real
 * PostgreSQL and RabbitMQ. OutboxRelayIT runs the relay's work in a real Boot application.
 */
class OutboxRelayConditionsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    static final String EMAILS = rabbit.queue("relay-emails");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(BootApps.outboxAutoConfigurations())
            .withBean(
                    DataSource.class,
                    () -> new DelegatingDataSource(db.dataSource())) // the context's close leaves the class's pool open
            .withPropertyValues(
                    "outbox.schema=" + db.schema(),
                    "outbox.flyway.enabled=false",
                    "outbox.relay.auto-startup=false",
                    "outbox.relay.uri=" + rabbit.uri());

    @Configuration(proxyBeanMethods = false)
    static class RouteBean {
        @Bean
        Routes orderRoutes() {
            return Routes.builder()
                    .job("order.placed", "send-confirmation", EMAILS, RetrySchedule.seconds(5), Duration.ofMinutes(5))
                    .build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRelay {
        static final OutboxRelay OWN = OutboxRelay.builder()
                .dataSource(db.dataSource())
                .amqpUri(rabbit.uri())
                .tables(db.tables())
                .routes(new RouteBean().orderRoutes())
                .build();

        @Bean
        OutboxRelay myRelay() {
            return OWN;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Meters {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @Test
    void withoutOutboxRelayEnabledThereIsNoRelay() {
        runner.withUserConfiguration(RouteBean.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(OutboxRelay.class).doesNotHaveBean(OutboxRelayLifecycle.class);
        });
    }

    @Test
    void outboxRelayEnabledGivesARelayInTheLifecycleOfTheContext() {
        runner.withUserConfiguration(RouteBean.class)
                .withPropertyValues("outbox.relay.enabled=true")
                .run(context -> {
                    assertThat(context).hasSingleBean(OutboxRelay.class).hasSingleBean(OutboxRelayLifecycle.class);
                    OutboxRelayLifecycle lifecycle = context.getBean(OutboxRelayLifecycle.class);
                    assertThat(lifecycle.getPhase()).isEqualTo(OutboxWorkerLifecycle.PHASE);
                    assertThat(lifecycle.isAutoStartup()).isFalse();
                    assertThat(lifecycle.isRunning()).isFalse();
                    assertThat(context.getBean(OutboxRelay.class).tables()).isEqualTo(db.tables());
                });
    }

    @Test
    void theRelayStartsWithTheContextAndStopsWithIt() {
        OutboxRelayLifecycle[] seen = new OutboxRelayLifecycle[1];
        runner.withUserConfiguration(RouteBean.class)
                .withPropertyValues("outbox.relay.enabled=true", "outbox.relay.auto-startup=true")
                .run(context -> {
                    seen[0] = context.getBean(OutboxRelayLifecycle.class);
                    assertThat(seen[0].isRunning()).isTrue();
                    assertThat(seen[0].failure()).isEmpty();
                });
        assertThat(seen[0].isRunning()).isFalse();
    }

    @Test
    void relayEnabledWithoutOutboxRelayOnTheClassPathFailsTheStartSayingWhatToAdd() {
        runner.withClassLoader(new FilteredClassLoader(OutboxRelay.class))
                .withPropertyValues("outbox.relay.enabled=true")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("outbox.relay.enabled=true, but outbox-relay is not on the class"
                                + " path: add the dependency dev.outbox:outbox-relay (the starter has it)"));
    }

    @Test
    void withoutOutboxRelayOnTheClassPathAndTheRelayOffNothingFails() {
        runner.withClassLoader(new FilteredClassLoader(OutboxRelay.class)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(OutboxRelayLifecycle.class);
        });
    }

    @Test
    void anApplicationsOwnRelayWinsAndRunsInTheLifecycle() {
        runner.withUserConfiguration(OwnRelay.class)
                .withPropertyValues("outbox.relay.enabled=true")
                .run(context -> {
                    assertThat(context.getBeansOfType(OutboxRelay.class)).containsOnlyKeys("myRelay");
                    assertThat(context).hasSingleBean(OutboxRelayLifecycle.class);
                });
    }

    @Test
    void theRelaysMetersGoToTheApplicationsMeterRegistryByTheRelayServicesNames() {
        runner.withUserConfiguration(RouteBean.class, Meters.class)
                .withPropertyValues("outbox.relay.enabled=true")
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.find("outbox.relay.events.routed").counter())
                            .isNotNull();
                    assertThat(registry.find("outbox.relay.events.unrouted").gauge())
                            .isNotNull();
                });
    }

    @Test
    void theHealthHasARelayPartUpWhileTheRelayRuns() {
        runner.withUserConfiguration(RouteBean.class)
                .withPropertyValues("outbox.relay.enabled=true")
                .run(context -> {
                    OutboxHealth health = context.getBean(OutboxHealth.class);
                    assertThat(part(health.check(), "relay"))
                            .containsEntry("status", "DOWN")
                            .containsEntry("running", false);
                    context.getBean(OutboxRelayLifecycle.class).start();
                    assertThat(part(health.check(), "relay"))
                            .containsEntry("status", "UP")
                            .containsEntry("running", true);
                });
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> part(OutboxHealthCheck.Result result, String name) {
        return (Map<String, Object>) result.details().get(name);
    }

    @Test
    void relayEnabledWithoutRoutesFailsTheStartNamingTheProperties() {
        runner.withPropertyValues("outbox.relay.enabled=true")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "outbox.relay.enabled=true, but the relay has no routes: set outbox.relay.routes-file"
                                        + " or declare a Routes bean"));
    }

    @Test
    void anUnreadableRoutesFileFailsTheStartNamingTheProperty() {
        runner.withPropertyValues("outbox.relay.enabled=true", "outbox.relay.routes-file=/no/such/routes.yaml")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "outbox.relay.routes-file: /no/such/routes.yaml: no such routes file"));
    }

    @Test
    void aSleepOfNoWholeSecondsFailsTheStartNamingTheProperty() {
        runner.withUserConfiguration(RouteBean.class)
                .withPropertyValues("outbox.relay.enabled=true", "outbox.relay.sleep=1500ms")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "outbox.relay.sleep must be a whole number of seconds from 1 to 3600, got PT1.5S"));
    }

    @Test
    void aNegativeMaxInFlightFailsTheStartNamingTheProperty() {
        runner.withUserConfiguration(RouteBean.class)
                .withPropertyValues("outbox.relay.enabled=true", "outbox.relay.max-in-flight=-1")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("outbox.relay.max-in-flight must be from 1 to 100000, got -1"));
    }

    @Test
    void anUnknownQueueTypeFailsTheStartNamingTheProperty() {
        runner.withUserConfiguration(RouteBean.class)
                .withPropertyValues("outbox.relay.enabled=true", "outbox.relay.queue-type=stream")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("outbox.relay.queue-type must be classic or quorum, got 'stream'"));
        runner.withUserConfiguration(RouteBean.class)
                .withPropertyValues("outbox.relay.enabled=true", "outbox.relay.queue-type=stream\u001b[2J")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "outbox.relay.queue-type must be classic or quorum, got 'stream\\u001b[2J'"));
    }

    @Test
    void theFailureAnalyzerTellsTheBadPropertyAndWhatToDo() {
        runner.withUserConfiguration(RouteBean.class)
                .withPropertyValues("outbox.relay.enabled=true", "outbox.relay.max-in-flight=-1")
                .run(context -> {
                    FailureAnalysis analysis = new OutboxPropertyFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .isEqualTo("The outbox could not start: the property 'outbox.relay.max-in-flight' is not"
                                    + " valid.\n\n    outbox.relay.max-in-flight must be from 1 to 100000, got -1");
                    assertThat(analysis.getAction())
                            .startsWith("Update 'outbox.relay.max-in-flight' in the application's configuration");
                });
    }

    @Test
    void theFailureAnalyzerTellsABadWorkerPrefetchToo() {
        runner.withBean(
                        "sendConfirmation",
                        OutboxJobHandler.class,
                        () -> OutboxJobHandler.of("send-confirmation", Object.class, EMAILS, (event, context) -> {}))
                .withPropertyValues("outbox.worker.auto-startup=false", "outbox.worker.prefetch=-1")
                .run(context -> {
                    FailureAnalysis analysis = new OutboxPropertyFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .contains("the property 'outbox.worker.prefetch' is not valid")
                            .contains("outbox.worker.prefetch must be 1..65535, got -1");
                });
    }
}
