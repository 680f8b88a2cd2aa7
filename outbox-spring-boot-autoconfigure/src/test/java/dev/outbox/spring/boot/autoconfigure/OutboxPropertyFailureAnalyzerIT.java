package dev.outbox.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Routes;
import dev.outbox.testing.PostgresSchemaExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A real Boot application that fails to start on a bad {@code outbox.*} property tells it as Boot tells
 * a bind error, through the failure analyzer of {@code META-INF/spring.factories}: the property and
 * what is wrong, then what to do.
 */
@ExtendWith(OutputCaptureExtension.class)
class OutboxPropertyFailureAnalyzerIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Routes orderRoutes() {
            return Routes.builder()
                    .job("order.placed", "send-confirmation", "emails", RetrySchedule.seconds(5), Duration.ofMinutes(5))
                    .build();
        }
    }

    @Test
    void aBadRelayPropertyFailsTheStartWithTheAnalysisNamingIt(CapturedOutput output) {
        assertThatThrownBy(() ->
                        BootApps.start(db, App.class, "outbox.relay.enabled=true", "outbox.relay.max-in-flight=-1"))
                .hasStackTraceContaining("outbox.relay.max-in-flight must be from 1 to 100000, got -1");

        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("The outbox could not start: the property 'outbox.relay.max-in-flight' is not valid.")
                .contains("Update 'outbox.relay.max-in-flight' in the application's configuration");
    }
}
