package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.api.Routes;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class RelayBuilderTest {

    private static Relay.Builder builder() {
        return Relay.builder().dataSource(new PGSimpleDataSource()).amqpUri("amqp://localhost").routes(Routes.builder().build());
    }

    @Test
    void refusesAWakeupLingerOutsideZeroToOneSecond() {
        assertThatThrownBy(() -> builder().wakeupLinger(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Relay.wakeupLinger must be from 0 to 1 s, got PT-0.001S");
        assertThatThrownBy(() -> builder().wakeupLinger(Duration.ofMillis(1_001)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Relay.wakeupLinger must be from 0 to 1 s");
    }
}
