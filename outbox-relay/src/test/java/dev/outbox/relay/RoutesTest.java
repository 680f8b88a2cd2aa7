package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoutesTest {

    @Test
    void buildsRoutesPerEventTypeInCode() {
        Routes routes = Routes.builder()
                .job(
                        "order.placed",
                        "send-confirmation",
                        "emails",
                        RetrySchedule.seconds(5, 30),
                        Duration.ofSeconds(300))
                .route("order.placed", Route.job("reserve-stock", "stock", List.of(), Duration.ofSeconds(60)))
                .publish(
                        "order.placed",
                        "order-events",
                        "orders",
                        "order.placed",
                        RetrySchedule.seconds(5),
                        Duration.ofSeconds(60))
                .route(
                        "order.cancelled",
                        Route.job(
                                "refund",
                                "payments",
                                RetrySchedule.exponential(Duration.ofSeconds(5), 3, Duration.ofSeconds(3600), 6),
                                Duration.ofSeconds(120)))
                .build();

        assertThat(routes.eventTypes()).containsExactlyInAnyOrder("order.placed", "order.cancelled");
        assertThat(routes.of("order.placed"))
                .extracting(Route::name)
                .containsExactly("send-confirmation", "reserve-stock", "order-events");
        assertThat(routes.of("order.placed").get(0))
                .isEqualTo(new JobRoute(
                        "send-confirmation", "emails", RetrySchedule.seconds(5, 30), Duration.ofSeconds(300)));
        assertThat(routes.of("order.placed").get(2))
                .isEqualTo(new PublishRoute(
                        "order-events", "orders", "order.placed", RetrySchedule.seconds(5), Duration.ofSeconds(60)));
        assertThat(routes.of("order.cancelled").get(0).retryDelays())
                .isEqualTo(RetrySchedule.seconds(5, 15, 45, 135, 405, 1215));
        assertThat(routes.all()).hasSize(4);
        assertThat(routes.of("nobody.listens")).isEmpty();
    }

    @Test
    void copiesTheDelayListSoLaterChangesDoNotReachTheRoute() {
        List<Duration> delays = new ArrayList<>(RetrySchedule.seconds(5, 10));
        Route route = Route.job("j", "q", delays, Duration.ofSeconds(10));
        delays.add(Duration.ofSeconds(20));
        assertThat(route.retryDelays()).isEqualTo(RetrySchedule.seconds(5, 10));
        assertThatThrownBy(() -> route.retryDelays().add(Duration.ofSeconds(1)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void acceptsAnEmptyDelayList() {
        assertThat(Route.job("j", "q", List.of(), Duration.ofSeconds(10)).retryDelays())
                .isEmpty();
    }

    @Test
    void refusesAnInvalidRouteNamingTheField() {
        assertThatThrownBy(() -> Route.job("", "q", List.of(), Duration.ofSeconds(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobType");
        assertThatThrownBy(() -> Route.job("has space", "q", List.of(), Duration.ofSeconds(10)))
                .hasMessageContaining("jobType");
        assertThatThrownBy(() -> Route.job("j", "", List.of(), Duration.ofSeconds(10)))
                .hasMessageContaining("queue");
        assertThatThrownBy(() -> Route.job("j", "q".repeat(256), List.of(), Duration.ofSeconds(10)))
                .hasMessageContaining("queue");
        assertThatThrownBy(() -> Route.job("j", "q", RetrySchedule.seconds(5, 0), Duration.ofSeconds(10)))
                .hasMessageContaining("retryDelays[1]");
        assertThatThrownBy(() -> Route.job("j", "q", RetrySchedule.seconds(-1), Duration.ofSeconds(10)))
                .hasMessageContaining("retryDelays[0]");
        assertThatThrownBy(
                        () -> Route.job("j", "q", Arrays.asList(Duration.ofSeconds(5), null), Duration.ofSeconds(10)))
                .hasMessageContaining("retryDelays[1]");
        assertThatThrownBy(() -> Route.job(
                        "j",
                        "q",
                        Collections.nCopies(Route.MAX_RETRIES + 1, Duration.ofSeconds(1)),
                        Duration.ofSeconds(10)))
                .hasMessageContaining("retryDelays");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(), Duration.ofSeconds(0)))
                .hasMessageContaining("deliveryTimeout");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(), Duration.ofSeconds(-5)))
                .hasMessageContaining("deliveryTimeout");
        assertThatThrownBy(() -> Route.publish("p", "", "rk", List.of(), Duration.ofSeconds(10)))
                .hasMessageContaining("exchange");
        assertThatThrownBy(() -> Route.publish("", "orders", "rk", List.of(), Duration.ofSeconds(10)))
                .hasMessageContaining("name");
        // a publish route whose queue is not its exchange, and a job route with an exchange, cannot be written any
        // more:
        // the two kinds are two types (RouteTemplatesTest checks that a publish route's queue column is its exchange)
    }

    @Test
    void refusesAnInvalidRouteNamingTheEventTypeAndTheField() {
        assertThatThrownBy(() -> Routes.builder().job("order.placed", "j", "", List.of(), Duration.ofSeconds(10)))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("queue");
        assertThatThrownBy(() -> Routes.builder()
                        .job("order.placed", "j", "q", RetrySchedule.seconds(60, 0), Duration.ofSeconds(10)))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("retryDelays[1]");
        assertThatThrownBy(() -> Routes.builder().job("order.placed", "j", "q", List.of(), Duration.ofSeconds(0)))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("deliveryTimeout");
        assertThatThrownBy(
                        () -> Routes.builder().job("order.placed", "bad name", "q", List.of(), Duration.ofSeconds(10)))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("jobType");
        assertThatThrownBy(() -> Routes.builder()
                        .publish("order.placed", "p", "orders", null, List.of(), Duration.ofSeconds(10)))
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
        assertThatThrownBy(() ->
                        Routes.builder().route("order placed", Route.job("j", "q", List.of(), Duration.ofSeconds(10))))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order placed'");
        assertThatThrownBy(() -> Routes.builder().job("", "j", "q", List.of(), Duration.ofSeconds(10)))
                .isInstanceOf(InvalidRouteException.class);
    }

    @Test
    void refusesTheSameJobTypeAndQueueTwiceForOneEventType() {
        Routes.Builder builder = Routes.builder().job("order.placed", "j", "q", List.of(), Duration.ofSeconds(10));
        assertThatThrownBy(
                        () -> builder.job("order.placed", "j", "q", RetrySchedule.seconds(5), Duration.ofSeconds(20)))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessageContaining("event type 'order.placed'")
                .hasMessageContaining("given twice");
    }

    @Test
    void allowsTheSameRouteForTwoEventTypes() {
        Route route = Route.job("j", "q", List.of(), Duration.ofSeconds(10));
        Routes routes = Routes.builder().route("a", route).route("b", route).build();
        assertThat(routes.of("a")).containsExactly(route);
        assertThat(routes.of("b")).containsExactly(route);
    }

    @Test
    void countsTheBytesOfQueueExchangeAndRoutingKeyNotTheCharacters() {
        String twoByteChars = "bad_" + "é".repeat(126); // 130 characters, 256 bytes in UTF-8
        assertThatThrownBy(() -> Route.job("j", twoByteChars, List.of(), Duration.ofSeconds(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queue must be at most 255 bytes in UTF-8 (an AMQP short string), got 256 bytes");
        assertThatThrownBy(() -> Route.publish("p", twoByteChars, "rk", List.of(), Duration.ofSeconds(10)))
                .hasMessageStartingWith("exchange of a publish route must be at most 255 bytes in UTF-8");
        assertThatThrownBy(() -> Route.publish("p", "orders", twoByteChars, List.of(), Duration.ofSeconds(10)))
                .hasMessageStartingWith("routingKey of a publish route must be at most 255 bytes in UTF-8");
        assertThatThrownBy(() -> Route.job("j", "😀".repeat(64), List.of(), Duration.ofSeconds(10)))
                .hasMessageContaining("got 256 bytes");
        String fits = "bad_" + "é".repeat(125) + "x"; // 255 bytes
        assertThat(Route.job("j", fits, List.of(), Duration.ofSeconds(10)).queue())
                .isEqualTo(fits);
        assertThat(Route.publish("p", "orders", "", List.of(), Duration.ofSeconds(10))
                        .routingKey())
                .isEmpty();
    }

    @Test
    void refusesControlCharactersAndUnpairedSurrogatesInBrokerNames() {
        assertThatThrownBy(() -> Route.job("j", "a\nb", List.of(), Duration.ofSeconds(10)))
                .hasMessage("queue must not contain a control character (U+000A at index 1)");
        assertThatThrownBy(() -> Route.publish("p", "orders", "k\u0000", List.of(), Duration.ofSeconds(10)))
                .hasMessage("routingKey of a publish route must not contain a control character (U+0000 at index 1)");
        assertThatThrownBy(() -> Route.job("j", "q\uD800", List.of(), Duration.ofSeconds(10)))
                .hasMessage("queue must be valid Unicode (an unpaired surrogate at index 1)");
    }

    @Test
    void refusesAQueueNameReservedByTheBroker() {
        assertThatThrownBy(() -> Route.job("j", "amq.gen-1", List.of(), Duration.ofSeconds(10)))
                .hasMessage("queue must not begin with 'amq.' (reserved by the broker), got 'amq.gen-1'");
        assertThat(Route.publish("p", "amq.topic", "order.placed", List.of(), Duration.ofSeconds(10))
                        .exchange())
                .isEqualTo("amq.topic");
    }

    @Test
    void refusesDelaysOverThirtyDaysAndTimeoutsOverSevenDays() {
        assertThatThrownBy(
                        () -> Route.job("j", "q", RetrySchedule.seconds(5, Integer.MAX_VALUE), Duration.ofSeconds(10)))
                .hasMessage("retryDelays[1] must be at most 2592000 seconds (30 days), got 2147483647");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(), Duration.ofSeconds(Integer.MAX_VALUE)))
                .hasMessage("deliveryTimeout must be at most 604800 seconds (7 days), got 2147483647");
        Route longest = Route.job(
                "j",
                "q",
                RetrySchedule.seconds(Route.MAX_RETRY_DELAY_SECONDS),
                Duration.ofSeconds(Route.MAX_DELIVERY_TIMEOUT_SECONDS));
        assertThat(longest.deliveryTimeout()).isEqualTo(Duration.ofSeconds(604_800));
        assertThatThrownBy(() -> Routes.builder().job("order.placed", "j", "q", List.of(), Duration.ofSeconds(604_801)))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessage(
                        "event type 'order.placed': invalid job route: deliveryTimeout must be at most 604800 seconds (7 days),"
                                + " got 604801");
    }

    @Test
    void refusesASubSecondOrNegativeDurationNamingTheField() {
        assertThatThrownBy(() -> Route.job("j", "q", List.of(Duration.ofMillis(1500)), Duration.ofSeconds(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryDelays[0] must be a whole number of seconds, got PT1.5S (1500 ms)");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(), Duration.ofMillis(500)))
                .hasMessage("deliveryTimeout must be a whole number of seconds, got PT0.5S (500 ms)");
        assertThatThrownBy(() ->
                        Route.publish("p", "orders", "rk", List.of(Duration.ofSeconds(-1)), Duration.ofSeconds(10)))
                .hasMessage("retryDelays[0] must be a positive whole number of seconds, got -1");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(), Duration.ofSeconds(-5)))
                .hasMessage("deliveryTimeout must be a positive whole number of seconds, got -5");
        assertThatThrownBy(() -> Route.job("j", "q", List.of(), null))
                .hasMessage("deliveryTimeout must be a positive whole number of seconds, got null");
        assertThatThrownBy(() -> Routes.builder()
                        .publish(
                                "order.placed",
                                "p",
                                "orders",
                                "rk",
                                List.of(Duration.ofMillis(1)),
                                Duration.ofSeconds(1)))
                .isInstanceOf(InvalidRouteException.class)
                .hasMessage(
                        "event type 'order.placed': invalid publish route: retryDelays[0] must be a whole number of seconds, got PT0.001S (1 ms)");
    }

    @Test
    void printsABadNameBoundedAndEscaped() {
        assertThatThrownBy(() -> Route.job(
                        "x\n12:00:00.000 ERROR forged" + "y".repeat(1000), "q", List.of(), Duration.ofSeconds(10)))
                .hasMessageNotContaining("\n")
                .hasMessageContaining("x\\u000a12:00:00.000 ERROR forged")
                .hasMessageContaining("…(+");
        assertThatThrownBy(() -> Routes.builder().route("a\nb", Route.job("j", "q", List.of(), Duration.ofSeconds(10))))
                .hasMessageNotContaining("\n")
                .hasMessageContaining("a\\u000ab");
    }
}
