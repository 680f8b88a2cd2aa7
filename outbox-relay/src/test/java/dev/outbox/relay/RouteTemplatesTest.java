package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.delivery.DeliveryTemplate;
import dev.outbox.delivery.RouteKind;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouteTemplatesTest {

    @Test
    void turnsAJobRouteIntoATemplateInSeconds() {
        assertThat(RouteTemplates.template(
                        Route.job("send-confirmation", "emails", RetrySchedule.seconds(5, 30), Duration.ofMinutes(5))))
                .isEqualTo(new DeliveryTemplate(
                        RouteKind.JOB, "send-confirmation", "emails", null, null, List.of(5, 30), 300));
    }

    @Test
    void givesAPublishRouteItsExchangeAsTheQueue() {
        assertThat(RouteTemplates.template(Route.publish(
                        "order-events", "orders", "order.placed", RetrySchedule.seconds(5), Duration.ofMinutes(1))))
                .isEqualTo(new DeliveryTemplate(
                        RouteKind.PUBLISH, "order-events", "orders", "orders", "order.placed", List.of(5), 60));
    }

    @Test
    void keepsEachEventTypesRoutesInOrder() {
        Routes routes = Routes.builder()
                .job("order.placed", "a", "q1", List.of(), Duration.ofSeconds(1))
                .publish("order.placed", "b", "x", "rk", List.of(), Duration.ofSeconds(2))
                .job("order.cancelled", "c", "q2", List.of(), Duration.ofSeconds(3))
                .build();
        assertThat(RouteTemplates.of(routes).of("order.placed"))
                .extracting(DeliveryTemplate::jobType)
                .containsExactly("a", "b");
        assertThat(RouteTemplates.of(routes).of("order.cancelled"))
                .extracting(DeliveryTemplate::deliveryTimeoutSeconds)
                .containsExactly(3);
    }
}
