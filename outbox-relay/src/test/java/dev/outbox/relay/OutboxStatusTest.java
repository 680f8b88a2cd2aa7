package dev.outbox.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutboxStatusTest {

    private static final Instant AT = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    @SuppressWarnings("unchecked")
    void mapsTheStatusWithDurationsInSecondsAndReasonsInOrder() {
        OutboxStatus status = new OutboxStatus(
                AT,
                List.of(
                        new OutboxStatus.Queue("emails", 3, 2, 1, 1, 7, 2, Duration.ofMillis(90_500)),
                        new OutboxStatus.Queue("sms", 0, 0, 0, 0, 1, 0, null)),
                4,
                Map.of("timeout", 1L, "job_failed", 1L),
                List.of(new OutboxStatus.BlockedRoute("ship", "orders", 2, "order-7", Duration.ofSeconds(30))));

        Map<String, Object> map = status.toMap();

        assertThat(map)
                .containsOnlyKeys(
                        "at",
                        "queues",
                        "unroutedEvents",
                        "failuresByReason",
                        "oldestReadySeconds",
                        "blockedKeys",
                        "blockedKeysByRoute");
        assertThat(map.get("at")).isEqualTo("2026-03-01T12:00:00Z");
        assertThat(map.get("oldestReadySeconds")).isEqualTo(90.5);
        assertThat(map.get("unroutedEvents")).isEqualTo(4L);
        assertThat(List.copyOf(((Map<?, ?>) map.get("failuresByReason")).keySet()))
                .isEqualTo(List.of("job_failed", "timeout"));
        assertThat(map.get("blockedKeys")).isEqualTo(2L);
        List<?> queues = (List<?>) map.get("queues");
        assertThat((Map<Object, Object>) queues.get(0))
                .containsEntry("name", "emails")
                .containsEntry("readyPending", 2L)
                .containsEntry("waitingForWorker", 1L)
                .containsEntry("oldestReadySeconds", 90.5);
        assertThat((Map<Object, Object>) queues.get(1)).containsEntry("oldestReadySeconds", null);
        assertThat((Map<Object, Object>) ((List<?>) map.get("blockedKeysByRoute")).get(0))
                .containsEntry("oldestKey", "order-7")
                .containsEntry("oldestAgeSeconds", 30.0);
    }

    @Test
    void anEmptyOutboxHasNoOldestReady() {
        assertThat(new OutboxStatus(AT, List.of(), 0, Map.of()).toMap())
                .containsEntry("oldestReadySeconds", null)
                .containsEntry("blockedKeys", 0L);
    }

    @Test
    void printsNamesFromTheTablesWithTheirControlCharactersEscaped() {
        // the tables may hold what another program wrote: a name must not clear the operator's screen or forge a line
        OutboxStatus status = new OutboxStatus(
                AT,
                List.of(new OutboxStatus.Queue("jobs\u001b[2J\nfake 0 0", 1, 1, 0, 0, 0, 0, null)),
                0,
                Map.of("bad\u001b]0;x\u0007", 1L),
                List.of(new OutboxStatus.BlockedRoute("ship\r", "orders\u001b[31m", 1, "k", Duration.ofSeconds(1))));

        String table = status.toTable();

        assertThat(table)
                .doesNotContain("\u001b", "\u0007", "\r")
                .contains("jobs\\u001b[2J\\u000afake 0 0", "bad\\u001b]0;x\\u0007", "ship\\u000d", "orders\\u001b[31m");
        assertThat(table.lines()).noneMatch(line -> line.startsWith("fake"));
    }
}
