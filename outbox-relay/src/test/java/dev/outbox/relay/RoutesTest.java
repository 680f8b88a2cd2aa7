package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.delivery.RouteKind;
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

    @Test
    void countsTheBytesOfQueueExchangeAndRoutingKeyNotTheCharacters() {
        String twoByteChars = "bad_" + "é".repeat(126); // 130 characters, 256 bytes in UTF-8
        assertThatThrownBy(() -> Route.job("j", twoByteChars, List.of(), 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queue must be at most 255 bytes in UTF-8 (an AMQP short string), got 256 bytes");
        assertThatThrownBy(() -> Route.publish("p", twoByteChars, "rk", List.of(), 10))
                .hasMessageStartingWith("exchange of a publish route must be at most 255 bytes in UTF-8");
        assertThatThrownBy(() -> Route.publish("p", "orders", twoByteChars, List.of(), 10))
                .hasMessageStartingWith("routingKey of a publish route must be at most 255 bytes in UTF-8");
        assertThatThrownBy(() -> Route.job("j", "😀".repeat(64), List.of(), 10)).hasMessageContaining("got 256 bytes");
        String fits = "bad_" + "é".repeat(125) + "x"; // 255 bytes
        assertThat(Route.job("j", fits, List.of(), 10).queue()).isEqualTo(fits);
        assertThat(Route.publish("p", "orders", "", List.of(), 10).routingKey()).isEmpty();
    }

    @Test
    void refusesControlCharactersAndUnpairedSurrogatesInBrokerNames() {
        assertThatThrownBy(() -> Route.job("j", "a\nb", List.of(), 10))
                .hasMessage("queue must not contain a control character (U+000A at index 1)");
        assertThatThrownBy(() -> Route.publish("p", "orders", "k\u0000", List.of(), 10))
                .hasMessage("routingKey of a publish route must not contain a control character (U+0000 at index 1)");
        assertThatThrownBy(() -> Route.job("j", "q\uD800", List.of(), 10))
                .hasMessage("queue must be valid Unicode (an unpaired surrogate at index 1)");
    }

    @Test
    void refusesAQueueNameReservedByTheBroker() {
        assertThatThrownBy(() -> Route.job("j", "amq.gen-1", List.of(), 10))
                .hasMessage("queue must not begin with 'amq.' (reserved by the broker), got 'amq.gen-1'");
        assertThat(Route.publish("p", "amq.topic", "order.placed", List.of(), 10).exchange()).isEqualTo("amq.topic");
    }

    @Test
    void refusesDelaysOverThirtyDaysAndTimeoutsOverSevenDays() {
        assertThatThrownBy(() -> Route.job("j", "q", List.of(5, Integer.MAX_VALUE), 10))
                .hasMessage("retryDelaysSeconds[1] must be at most 2592000 seconds (30 days), got 2147483647");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(), Integer.MAX_VALUE))
                .hasMessage("deliveryTimeoutSeconds must be at most 604800 seconds (7 days), got 2147483647");
        Route longest = Route.job("j", "q", List.of(Route.MAX_RETRY_DELAY_SECONDS), Route.MAX_DELIVERY_TIMEOUT_SECONDS);
        assertThat(longest.deliveryTimeoutSeconds()).isEqualTo(604_800);
        assertThatThrownBy(() -> Routes.builder().job("order.placed", "j", "q", List.of(), 604_801))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessage("event type 'order.placed': invalid job route: deliveryTimeoutSeconds must be at most 604800 seconds (7 days),"
                        + " got 604801");
    }

    @Test
    void printsABadNameBoundedAndEscaped() {
        assertThatThrownBy(() -> Route.job("x\n12:00:00.000 ERROR forged" + "y".repeat(1000), "q", List.of(), 10))
                .hasMessageNotContaining("\n")
                .hasMessageContaining("x\\u000a12:00:00.000 ERROR forged")
                .hasMessageContaining("…(+");
        assertThatThrownBy(() -> Routes.builder().route("a\nb", Route.job("j", "q", List.of(), 10)))
                .hasMessageNotContaining("\n").hasMessageContaining("a\\u000ab");
    }
}
