package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.worker.OutboxWorker;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * When the auto-configuration gives a worker and when it backs off, with {@code ApplicationContextRunner}
 * on a real DataSource. The worker is built but not started here ({@code outbox.worker.auto-startup=false});
 * OutboxWorkerIT starts it against the real broker.
 */
class OutboxWorkerConditionsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    static final String EMAILS = rabbit.queue("emails");

    record OrderPlaced(String orderId) {}

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OutboxAutoConfiguration.class))
            .withBean(
                    DataSource.class,
                    () -> new DelegatingDataSource(db.dataSource())) // the context's close leaves the class's pool open
            .withPropertyValues(
                    "outbox.schema=" + db.schema(), "outbox.flyway.enabled=false", "outbox.worker.auto-startup=false");

    @Configuration(proxyBeanMethods = false)
    static class OneHandler {
        @Bean
        OutboxJobHandler<OrderPlaced> sendConfirmation() {
            return OutboxJobHandler.of("send-confirmation", OrderPlaced.class, EMAILS, (order, context) -> {});
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class HandlerOfADottedQueue {
        static final String QUEUE = rabbit.queue("Jobs.Mail");

        @Bean
        OutboxJobHandler<OrderPlaced> mail() {
            return OutboxJobHandler.of("mail", OrderPlaced.class, QUEUE, (order, context) -> {});
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoHandlersForOneJobType {
        @Bean
        OutboxJobHandler<OrderPlaced> sendConfirmation() {
            return OutboxJobHandler.of("send-confirmation", OrderPlaced.class, EMAILS, (order, context) -> {});
        }

        @Bean
        OutboxJobHandler<OrderPlaced> mailTheCustomer() {
            return OutboxJobHandler.of(
                    "send-confirmation", OrderPlaced.class, rabbit.queue("mails"), (order, context) -> {});
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnWorker {
        static final OutboxWorker OWN = OutboxWorker.builder()
                .dataSource(db.dataSource())
                .amqpUri(rabbit.uri())
                .tables(db.tables())
                .queue("own")
                .handler("own-job", OrderPlaced.class, (order, context) -> {})
                .shutdownHook(false)
                .build();

        @Bean
        OutboxWorker myWorker() {
            return OWN;
        }
    }

    @Test
    void withoutAHandlerBeanThereIsNoWorker() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(OutboxWorker.class).doesNotHaveBean(OutboxWorkerLifecycle.class);
        });
    }

    @Test
    void aHandlerBeanGivesAWorkerInTheLifecycleOfTheContext() {
        runner.withUserConfiguration(OneHandler.class).run(context -> {
            assertThat(context).hasSingleBean(OutboxWorker.class).hasSingleBean(OutboxWorkerLifecycle.class);
            OutboxWorkerLifecycle lifecycle = context.getBean(OutboxWorkerLifecycle.class);
            assertThat(lifecycle.getPhase()).isEqualTo(OutboxWorkerLifecycle.PHASE);
            assertThat(lifecycle.isAutoStartup()).isFalse();
            assertThat(lifecycle.isRunning()).isFalse();
        });
    }

    @Test
    void theWorkerStartsWithTheContextUnlessAutoStartupIsOff() {
        runner.withUserConfiguration(OneHandler.class)
                .withPropertyValues("outbox.worker.auto-startup=true")
                .run(context -> {
                    OutboxWorkerLifecycle lifecycle = context.getBean(OutboxWorkerLifecycle.class);
                    assertThat(lifecycle.isAutoStartup()).isTrue();
                    assertThat(lifecycle.isRunning()).isTrue(); // connected to the real broker, waiting for its queue
                });
    }

    @Test
    void outboxWorkerEnabledFalseGivesNoWorker() {
        runner.withUserConfiguration(OneHandler.class)
                .withPropertyValues("outbox.worker.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context)
                            .doesNotHaveBean(OutboxWorker.class)
                            .doesNotHaveBean(OutboxWorkerLifecycle.class);
                });
    }

    @Test
    void anApplicationsOwnWorkerWinsAndRunsInTheLifecycle() {
        runner.withUserConfiguration(OneHandler.class, OwnWorker.class).run(context -> {
            assertThat(context.getBeansOfType(OutboxWorker.class)).containsOnlyKeys("myWorker");
            assertThat(context).hasSingleBean(OutboxWorkerLifecycle.class);
        });
    }

    @Test
    void twoHandlerBeansForOneJobTypeFailTheStartNamingBoth() {
        runner.withUserConfiguration(TwoHandlersForOneJobType.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "job type 'send-confirmation' has two handler beans, 'sendConfirmation' and 'mailTheCustomer':"
                                        + " one job type has one handler"));
    }

    @Test
    void aNegativePrefetchFailsTheStartNamingTheProperty() {
        runner.withUserConfiguration(OneHandler.class)
                .withPropertyValues("outbox.worker.prefetch=-1")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("outbox.worker.prefetch must be 1..65535, got -1"));
    }

    @Test
    void aZeroConcurrencyOfOneQueueFailsTheStartNamingItsProperty() {
        runner.withUserConfiguration(OneHandler.class)
                .withPropertyValues("outbox.worker.queues." + EMAILS + ".concurrency=0")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "outbox.worker.queues." + EMAILS + ".concurrency must be 1..1000, got 0"));
    }

    @Test
    void aQueuesPrefetchBelowItsConcurrencyFailsTheStartNamingBothProperties() {
        runner.withUserConfiguration(OneHandler.class)
                .withPropertyValues("outbox.worker.queues." + EMAILS + ".prefetch=5", "outbox.worker.concurrency=10")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("outbox.worker.queues." + EMAILS
                                + ".prefetch (5) must be at least outbox.worker.concurrency (10)"));
    }

    @Test
    void aQueueNameWithDotsAndCapitalsIsSetInBracketsAndNamedSoInErrors() {
        String queue = HandlerOfADottedQueue.QUEUE;
        runner.withUserConfiguration(HandlerOfADottedQueue.class)
                .withPropertyValues("outbox.worker.queues[" + queue + "].prefetch=-5")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "outbox.worker.queues[" + queue + "].prefetch must be 1..65535, got -5"));
    }

    @Test
    void settingsOfAQueueNoHandlerReadsFailTheStartNamingIt() {
        runner.withUserConfiguration(OneHandler.class)
                .withPropertyValues("outbox.worker.queues.emials.prefetch=10")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "outbox.worker.queues.emials: no handler bean reads queue 'emials' (the handler beans read ["
                                        + EMAILS + "])"));
    }

    @Test
    void aShutdownGraceNotShorterThanTheShutdownPhaseFailsTheStartNamingBoth() {
        runner.withUserConfiguration(OneHandler.class)
                .withPropertyValues(
                        "outbox.worker.shutdown-grace=20s", "spring.lifecycle.timeout-per-shutdown-phase=20s")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "outbox.worker.shutdown-grace (PT20S) must be at least 0 and shorter than"
                                        + " spring.lifecycle.timeout-per-shutdown-phase (PT20S)"));
    }
}
