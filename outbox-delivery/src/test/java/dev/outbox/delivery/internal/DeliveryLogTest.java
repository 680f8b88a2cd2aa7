package dev.outbox.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.schema.enums.OutboxDeliveryStatus;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

class DeliveryLogTest {

    record Line(Level level, String message) {}

    /** Keeps what is logged. */
    static final class CapturingLogger extends AbstractLogger {
        private static final long serialVersionUID = 1L;
        final List<Line> lines = new ArrayList<>();

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(
                Level level, Marker marker, String pattern, Object[] args, Throwable t) {
            lines.add(new Line(level, MessageFormatter.basicArrayFormat(pattern, args)));
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isTraceEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled(Marker marker) {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled(Marker marker) {
            return true;
        }
    }

    static final UUID EVENT = UUID.randomUUID();
    static final UUID DELIVERY = UUID.randomUUID();
    static final OffsetDateTime AT = OffsetDateTime.of(2030, 1, 1, 0, 1, 0, 0, ZoneOffset.UTC);

    // The MDC entries (outboxEventId, outboxDeliveryId) are set around each call; slf4j-simple, the
    // binding of these tests, keeps no MDC, so the tests check the ids in the message and that the
    // MDC is left clean.

    @Test
    void logsAScheduledRetryAsAWarningNamingBothIds() {
        CapturingLogger log = new CapturingLogger();

        DeliveryLog.retryOutcome(
                log,
                new RetryOutcome(
                        DELIVERY,
                        EVENT,
                        UUID.randomUUID(),
                        "send-confirmation",
                        "emails",
                        OutboxDeliveryStatus.pending,
                        1,
                        AT,
                        null),
                "timeout");

        assertThat(log.lines).singleElement().satisfies(line -> {
            assertThat(line.level()).isEqualTo(Level.WARN);
            assertThat(line.message())
                    .contains(
                            "retry scheduled",
                            "send-confirmation",
                            "emails",
                            "timeout",
                            AT.toString(),
                            EVENT.toString(),
                            DELIVERY.toString());
        });
        assertThat(MDC.get("outboxEventId")).isNull();
    }

    @Test
    void logsAFinalFailureAsAnErrorWithTheReasonAndBothIds() {
        CapturingLogger log = new CapturingLogger();

        DeliveryLog.retryOutcome(
                log,
                new RetryOutcome(
                        DELIVERY,
                        EVENT,
                        UUID.randomUUID(),
                        "send-confirmation",
                        "emails",
                        OutboxDeliveryStatus.failed,
                        3,
                        AT,
                        FailureReason.RETRIES_EXHAUSTED),
                "job_error");

        assertThat(log.lines).singleElement().satisfies(line -> {
            assertThat(line.level()).isEqualTo(Level.ERROR);
            assertThat(line.message())
                    .contains(
                            "failed for good",
                            "3 attempt(s)",
                            "retries_exhausted",
                            EVENT.toString(),
                            DELIVERY.toString());
        });
        assertThat(MDC.get("outboxDeliveryId")).isNull();
    }
}
