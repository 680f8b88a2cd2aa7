package dev.outbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutesTest {

    @Test
    void buildsRoutesPerEventTypeInCode() {
        Routes routes = Routes.builder()
                .job("order.placed", "send-confirmation", "emails", List.of(5, 30), 300)
                .route("order.placed", Route.job("reserve-stock", "stock", List.of(), 60))
                .publish("order.placed", "order-events", "orders", "order.placed", List.of(5), 60)
                .route("order.cancelled", Route.job("refund", "payments", RetrySchedule.exponential(5, 3, 3600, 6), 120))
                .build();

        assertThat(routes.eventTypes()).containsExactlyInAnyOrder("order.placed", "order.cancelled");
        assertThat(routes.of("order.placed")).extracting(Route::jobType)
                .containsExactly("send-confirmation", "reserve-stock", "order-events");
        assertThat(routes.of("order.placed").get(0))
                .isEqualTo(new Route(RouteKind.JOB, "send-confirmation", "emails", null, null, List.of(5, 30), 300));
        assertThat(routes.of("order.placed").get(2))
                .isEqualTo(new Route(RouteKind.PUBLISH, "order-events", "orders", "orders", "order.placed", List.of(5), 60));
        assertThat(routes.of("order.cancelled").get(0).retryDelaysSeconds()).containsExactly(5, 15, 45, 135, 405, 1215);
        assertThat(routes.all()).hasSize(4);
        assertThat(routes.of("nobody.listens")).isEmpty();
    }

    @Test
    void copiesTheDelayListSoLaterChangesDoNotReachTheRoute() {
        List<Integer> delays = new ArrayList<>(List.of(5, 10));
        Route route = Route.job("j", "q", delays, 10);
        delays.add(20);
        assertThat(route.retryDelaysSeconds()).containsExactly(5, 10);
        assertThatThrownBy(() -> route.retryDelaysSeconds().add(1)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void acceptsAnEmptyDelayList() {
        assertThat(Route.job("j", "q", List.of(), 10).retryDelaysSeconds()).isEmpty();
    }

    @Test
    void refusesAnInvalidRouteNamingTheField() {
        assertThatThrownBy(() -> Route.job("", "q", List.of(), 10)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jobType");
        assertThatThrownBy(() -> Route.job("has space", "q", List.of(), 10)).hasMessageContaining("jobType");
        assertThatThrownBy(() -> Route.job("j", "", List.of(), 10)).hasMessageContaining("queue");
        assertThatThrownBy(() -> Route.job("j", "q".repeat(256), List.of(), 10)).hasMessageContaining("queue");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(5, 0), 10)).hasMessageContaining("retryDelaysSeconds[1]");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(-1), 10)).hasMessageContaining("retryDelaysSeconds[0]");
        assertThatThrownBy(() -> Route.job("j", "q", Arrays.asList(5, null), 10)).hasMessageContaining("retryDelaysSeconds[1]");
        assertThatThrownBy(() -> Route.job("j", "q", Collections.nCopies(Route.MAX_RETRIES + 1, 1), 10))
                .hasMessageContaining("retryDelaysSeconds");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(), 0)).hasMessageContaining("deliveryTimeoutSeconds");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(), -5)).hasMessageContaining("deliveryTimeoutSeconds");
        assertThatThrownBy(() -> Route.publish("p", "", "rk", List.of(), 10)).hasMessageContaining("exchange");
        assertThatThrownBy(() -> new Route(RouteKind.PUBLISH, "p", "elsewhere", "orders", "rk", List.of(), 10))
                .hasMessageContaining("queue of a publish route");
        assertThatThrownBy(() -> new Route(RouteKind.JOB, "j", "q", "orders", null, List.of(), 10)).hasMessageContaining("exchange");
    }

    @Test
    void refusesAnInvalidRouteNamingTheEventTypeAndTheField() {
        assertThatThrownBy(() -> Routes.builder().job("order.placed", "j", "", List.of(), 10))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("queue");
        assertThatThrownBy(() -> Routes.builder().job("order.placed", "j", "q", List.of(60, 0), 10))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("retryDelaysSeconds[1]");
        assertThatThrownBy(() -> Routes.builder().job("order.placed", "j", "q", List.of(), 0))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("deliveryTimeoutSeconds");
        assertThatThrownBy(() -> Routes.builder().job("order.placed", "bad name", "q", List.of(), 10))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("jobType");
        assertThatThrownBy(() -> Routes.builder().publish("order.placed", "p", "orders", null, List.of(), 10))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("routingKey");
    }

    @Test
    void refusesAnEventTypeWithNoRoutes() {
        assertThatThrownBy(() -> Routes.builder().route("order.placed", List.of()))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("must not be empty");
    }

    @Test
    void refusesAnInvalidEventTypeName() {
        assertThatThrownBy(() -> Routes.builder().route("order placed", Route.job("j", "q", List.of(), 10)))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order placed'");
        assertThatThrownBy(() -> Routes.builder().job("", "j", "q", List.of(), 10)).isInstanceOf(InvalidRouteException.class);
    }

    @Test
    void refusesTheSameJobTypeAndQueueTwiceForOneEventType() {
        Routes.Builder builder = Routes.builder().job("order.placed", "j", "q", List.of(), 10);
        assertThatThrownBy(() -> builder.job("order.placed", "j", "q", List.of(5), 20))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("given twice");
    }

    @Test
    void allowsTheSameRouteForTwoEventTypes() {
        Route route = Route.job("j", "q", List.of(), 10);
        Routes routes = Routes.builder().route("a", route).route("b", route).build();
        assertThat(routes.of("a")).containsExactly(route);
        assertThat(routes.of("b")).containsExactly(route);
    }
}
