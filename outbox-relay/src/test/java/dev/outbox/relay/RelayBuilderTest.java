package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.ds.PGSimpleDataSource;

/** {@code OutboxRelay.builder()} validates what it is given: the AMQP URI by the service's and worker's rule, the wake-up linger. */
class RelayBuilderTest {

    private static OutboxRelay.Builder builder(String amqpUri) {
        DataSource none = (DataSource) java.lang.reflect.Proxy.newProxyInstance(
                RelayBuilderTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> null);
        return OutboxRelay.builder()
                .dataSource(none)
                .amqpUri(amqpUri)
                .routes(Routes.builder()
                        .route("order.cancelled", Route.job("refund", "payments", List.of(), Duration.ofSeconds(120)))
                        .build());
    }

    private static OutboxRelay.Builder builder() {
        return OutboxRelay.builder()
                .dataSource(new PGSimpleDataSource())
                .amqpUri("amqp://localhost")
                .routes(Routes.builder().build());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "amqp://u:s3cret@bad_rabbit:abc/%2F",
                "amqp://u:s3cret@/%2F",
                "ftp://u:s3cret@host",
                "amqp://u:s3cret@host/a/b"
            })
    void refusesAnAmqpUriItCannotReadNamingTheFieldAndNotTheUri(String uri) {
        assertThatThrownBy(() -> builder(uri).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("OutboxRelay.amqpUri: ")
                .hasMessageNotContaining("s3cret");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "amqp://u:s3cret@bad_rabbit:5672/%2F",
                "amqps://bad_rabbit",
                "amqp://[::1]:5673/vhost?heartbeat=10"
            })
    void acceptsWhatItCanRead(String uri) {
        assertThatCode(() -> builder(uri).build().close()).doesNotThrowAnyException();
    }

    @Test
    void refusesAWakeupLingerOutsideZeroToOneSecond() {
        assertThatThrownBy(() -> builder().wakeupLinger(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("OutboxRelay.wakeupLinger must be from 0 to 1 s, got PT-0.001S");
        assertThatThrownBy(
                        () -> builder().wakeupLinger(Duration.ofMillis(1_001)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("OutboxRelay.wakeupLinger must be from 0 to 1 s");
    }

    @Test
    void refusesAGaugeIntervalOutsideOneSecondToOneHour() {
        assertThatThrownBy(() -> builder().gaugeInterval(Duration.ofMillis(999)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("OutboxRelay.gaugeInterval must be from 1 s to 1 h, got PT0.999S");
        assertThatThrownBy(() -> builder().gaugeInterval(Duration.ofMinutes(61)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("OutboxRelay.gaugeInterval must be from 1 s to 1 h, got PT1H1M");
    }

    @Test
    void refusesANullMeterRegistry() {
        assertThatThrownBy(() -> builder().meterRegistry(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("meterRegistry");
    }

    @Test
    void quotesABoundedEscapedPrefixOfANotifyChannelItRefuses() {
        String hostile = "bad\n\u001b[31m" + "x".repeat(1 << 20);

        assertThatThrownBy(() -> builder().notifyChannel(hostile).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 'bad\\u000a\\u001b[31mxxx")
                .hasMessageContaining("…(+")
                .satisfies(
                        e -> assertThat(e.getMessage()).hasSizeLessThan(1_000).doesNotContain("\n", "\u001b"));
    }

    @Test
    void refusesAConfirmTimeoutOfMoreThanAHundredYears() {
        assertThatThrownBy(() -> builder()
                        .confirmTimeout(java.time.temporal.ChronoUnit.FOREVER.getDuration())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("OutboxRelay.confirmTimeout must be at most 36500 days (100 years), got PT");
    }
}
