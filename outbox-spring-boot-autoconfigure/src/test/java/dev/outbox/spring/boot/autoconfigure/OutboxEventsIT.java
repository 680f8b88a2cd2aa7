package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.api.EventType;
import dev.outbox.api.Outbox;
import dev.outbox.api.OutboxException;
import dev.outbox.spring.OutboxEvent;
import dev.outbox.spring.OutboxEventDetails;
import dev.outbox.spring.OutboxEventListener;
import dev.outbox.testing.PostgresSchemaExtension;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.SimpleApplicationEventMulticaster;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.transaction.annotation.Transactional;

/**
 * Spring application events of {@link OutboxEvent} classes recorded in the publisher's transaction,
 * in a real Boot application on the real PostgreSQL with Boot's own transaction manager, on both
 * Boot lines.
 */
class OutboxEventsIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    private static ConfigurableApplicationContext context;

    @OutboxEvent("order.placed")
    record OrderPlaced(String orderId) {}

    /** The application's transactional service: an order row and its event, published in the same transaction. */
    static class Orders {
        private final DSLContext dsl;
        private final ApplicationEventPublisher events;

        Orders(DSLContext dsl, ApplicationEventPublisher events) {
            this.dsl = dsl;
            this.events = events;
        }

        @Transactional
        public void place(String orderId, boolean fail) {
            dsl.insertInto(DSL.table("orders")).set(DSL.field("id"), orderId).execute();
            events.publishEvent(new OrderPlaced(orderId)); // recorded now, in this transaction
            if (fail) {
                throw new IllegalStateException("payment refused");
            }
        }

        /** Publishes {@code published} in one transaction, with no business change. */
        @Transactional
        public void publish(Object... published) {
            for (Object event : published) {
                events.publishEvent(event);
            }
        }
    }

    /** Not marked: an application event for the application's own listeners only. */
    record CartViewed(String orderId) {}

    @OutboxEvent("order.shipped")
    record OrderShipped(String orderId, UUID id) implements OutboxEventDetails {
        @Override
        public String orderingKey() {
            return "order-" + orderId;
        }

        @Override
        public UUID eventId() {
            return id;
        }
    }

    @OutboxEvent("order.noted")
    record EmptyKey(String orderId) implements OutboxEventDetails {
        @Override
        public String orderingKey() {
            return "";
        }
    }

    @OutboxEvent(" ")
    record BlankType(String orderId) {}

    @OutboxEvent("order placed")
    record TypeWithASpace(String orderId) {}

    @OutboxEvent("order\nplaced\u001b[2J")
    record TypeWithControlCharacters(String orderId) {}

    @OutboxEvent("order.cancelled")
    @EventType("order.canceled")
    record TwoTypes(String orderId) {}

    @OutboxEvent("order.paid")
    static class PaidApplicationEvent extends ApplicationEvent {
        private static final long serialVersionUID = 1L;

        PaidApplicationEvent(Object source) {
            super(source);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Orders orders(DSLContext dsl, ApplicationEventPublisher events) {
            return new Orders(dsl, events);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class AppWithItsOwnListener {
        @Bean
        OutboxEventListener myListener(Outbox outbox, DSLContext dsl) {
            return new OutboxEventListener(outbox, dsl);
        }
    }

    /** The application's multicaster runs listeners on other threads. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class AppWithAnAsynchronousMulticaster extends App {
        @Bean
        SimpleApplicationEventMulticaster applicationEventMulticaster() {
            SimpleApplicationEventMulticaster multicaster = new SimpleApplicationEventMulticaster();
            multicaster.setTaskExecutor(new SimpleAsyncTaskExecutor("events-"));
            return multicaster;
        }
    }

    @BeforeAll
    static void startApplication() {
        context = BootApps.start(db, App.class);
    }

    @AfterAll
    static void stopApplication() {
        if (context != null) {
            context.close();
        }
    }

    private static int count(String table, String condition) {
        return BootApps.count(db, table, condition);
    }

    private static int events(String orderId) {
        return count("outbox_events", "payload->>'orderId' = '" + orderId + "'");
    }

    @Test
    void recordsAPublishedEventInTheTransactionalMethodsCommit() {
        context.getBean(Orders.class).place("e-commit", false);

        assertThat(count("orders", "id = 'e-commit'")).isEqualTo(1);
        assertThat(count("outbox_events", "payload->>'orderId' = 'e-commit' and event_type = 'order.placed'"))
                .isEqualTo(1);
    }

    @Test
    void aMethodThatThrowsAfterPublishingLeavesNeitherTheOrderNorTheEvent() {
        Orders orders = context.getBean(Orders.class);

        assertThatThrownBy(() -> orders.place("e-rollback", true)).hasMessage("payment refused");

        assertThat(count("orders", "id = 'e-rollback'")).isZero();
        assertThat(events("e-rollback")).isZero();
    }

    @Test
    void refusesAnEventPublishedOutsideATransactionWithRecordsError() {
        assertThatThrownBy(() -> context.publishEvent(new OrderPlaced("e-no-tx")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs the caller's open transaction");
        assertThat(events("e-no-tx")).isZero();
    }

    @Test
    void ignoresAnEventWhoseClassIsNotMarked() {
        context.getBean(Orders.class).publish(new CartViewed("e-not-marked"), new OrderPlaced("e-not-marked"));

        assertThat(events("e-not-marked")).isEqualTo(1);
        assertThat(count("outbox_events", "payload->>'orderId' = 'e-not-marked' and event_type = 'order.placed'"))
                .isEqualTo(1);
    }

    @Test
    void recordsThePayloadOfAPayloadApplicationEvent() {
        context.getBean(Orders.class).publish(new PayloadApplicationEvent<>(this, new OrderPlaced("e-payload-event")));

        assertThat(count("outbox_events", "payload->>'orderId' = 'e-payload-event' and event_type = 'order.placed'"))
                .isEqualTo(1);
    }

    @Test
    void takesTheOrderingKeyAndTheIdFromOutboxEventDetails() {
        UUID id = UUID.randomUUID();

        context.getBean(Orders.class).publish(new OrderShipped("e-details", id));

        assertThat(count(
                        "outbox_events",
                        "id = '" + id + "' and ordering_key = 'order-e-details' and event_type = 'order.shipped'"))
                .isEqualTo(1);
    }

    @Test
    void refusesABadOrderingKeyNamingTheClass() {
        assertThatThrownBy(() -> context.getBean(Orders.class).publish(new EmptyKey("e-empty-key")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(EmptyKey.class.getName() + ": NewEvent.orderingKey must be 1..255 characters, got 0");
        assertThat(events("e-empty-key")).isZero();
    }

    @Test
    void refusesABlankTypeNamingTheClass() {
        assertThatThrownBy(() -> context.getBean(Orders.class).publish(new BlankType("e-blank")))
                .isInstanceOf(OutboxException.class)
                .hasMessageStartingWith("@OutboxEvent on " + BlankType.class.getName() + ": event type must match")
                .hasMessageEndingWith("got ' '");
        assertThat(events("e-blank")).isZero();
    }

    @Test
    void refusesATypeThatIsNotAStableNameNamingTheClass() {
        assertThatThrownBy(() -> context.getBean(Orders.class).publish(new TypeWithASpace("e-space")))
                .isInstanceOf(OutboxException.class)
                .hasMessageStartingWith("@OutboxEvent on " + TypeWithASpace.class.getName() + ": event type must match")
                .hasMessageEndingWith("got 'order placed'");
    }

    @Test
    void quotesARefusedTypeWithItsControlCharactersEscaped() {
        assertThatThrownBy(() -> context.getBean(Orders.class).publish(new TypeWithControlCharacters("e-control")))
                .isInstanceOf(OutboxException.class)
                .hasMessageEndingWith("got 'order\\u000aplaced\\u001b[2J'");
    }

    @Test
    void refusesAClassWhoseEventTypeAnnotationNamesAnotherType() {
        assertThatThrownBy(() -> context.getBean(Orders.class).publish(new TwoTypes("e-two")))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining(TwoTypes.class.getName())
                .hasMessageContaining("'order.cancelled' and its @EventType names 'order.canceled'");
        assertThat(events("e-two")).isZero();
    }

    @Test
    void refusesAMarkedApplicationEventSubclass() {
        assertThatThrownBy(() -> context.getBean(Orders.class).publish(new PaidApplicationEvent(this)))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("@OutboxEvent on " + PaidApplicationEvent.class.getName()
                        + ": an ApplicationEvent subclass is not recorded");
        assertThat(count("outbox_events", "event_type = 'order.paid'")).isZero();
    }

    @Test
    void recordsInThePublishersTransactionWhenTheMulticasterIsAsynchronous() {
        try (ConfigurableApplicationContext async = BootApps.start(db, AppWithAnAsynchronousMulticaster.class)) {
            Orders orders = async.getBean(Orders.class);

            assertThatThrownBy(() -> orders.place("e-async-rollback", true)).hasMessage("payment refused");
            orders.place("e-async-commit", false);

            assertThat(events("e-async-rollback")).isZero();
            assertThat(events("e-async-commit")).isEqualTo(1);
        }
    }

    @Test
    void outboxEventsEnabledFalseRecordsNothing() {
        try (ConfigurableApplicationContext off = BootApps.start(db, App.class, "outbox.events.enabled=false")) {
            assertThat(off.getBeansOfType(OutboxEventListener.class)).isEmpty();

            off.getBean(Orders.class).place("e-disabled", false);

            assertThat(count("orders", "id = 'e-disabled'")).isEqualTo(1);
            assertThat(events("e-disabled")).isZero();
        }
    }

    @Test
    void noListenerWithTwoDslContextsAndNoPrimary() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(OutboxAutoConfiguration.class))
                .withBean("one", DSLContext.class, () -> DSL.using(SQLDialect.POSTGRES))
                .withBean("two", DSLContext.class, () -> DSL.using(SQLDialect.POSTGRES))
                .run(twoContexts -> assertThat(twoContexts).hasNotFailed().doesNotHaveBean(OutboxEventListener.class));
    }

    @Test
    void anApplicationsOwnListenerWins() {
        try (ConfigurableApplicationContext own = BootApps.start(db, AppWithItsOwnListener.class)) {
            assertThat(own.getBeansOfType(OutboxEventListener.class)).containsOnlyKeys("myListener");
        }
    }
}
