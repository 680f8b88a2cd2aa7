package dev.outbox.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.flyway.OutboxRoles;
import dev.outbox.flyway.OutboxTables;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every refusal of a string setting or argument of the recording API quotes what it was given as
 * {@code LogText.of} does: a bounded prefix, control characters escaped.
 */
class RefusalQuotingTest {

    /** 1 MiB that starts with a newline and a terminal escape. */
    private static final String HOSTILE = "bad\n\u001b[31mtype" + "x".repeat(1 << 20);

    record Holder(double value) {}

    static Stream<Named<Consumer<String>>> refusals() {
        return Stream.of(
                Named.of("Outbox.Builder.notifyChannel", v -> Outbox.builder().notifyChannel(v)),
                Named.of(
                        "EventTypes.Builder.register", v -> EventTypes.builder().register(v, Holder.class)),
                Named.of("NewEvent.eventType", v -> NewEvent.of(new Holder(1)).withEventType(v)),
                Named.of("NewEvent.traceparent", v -> NewEvent.of(new Holder(1)).withTraceparent(v)),
                Named.of(
                        "EventSerializer.serialize's event type",
                        v -> EventSerializer.jackson().serialize(v, new Holder(Double.NaN))));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void quotesABoundedEscapedPrefixOfWhatItRefuses(Consumer<String> setting) {
        assertThatThrownBy(() -> setting.accept(HOSTILE))
                .isInstanceOf(RuntimeException.class)
                .satisfies(e -> org.assertj.core.api.Assertions.assertThat(e.getMessage())
                        .contains("'bad\\u000a\\u001b[31mtype")
                        .contains("…(+")
                        .hasSizeLessThan(1_000)
                        .doesNotContain("\n", "\u001b"));
    }

    static Stream<Named<Consumer<String>>> names() {
        return Stream.of(
                Named.of("OutboxTables.withSchema", v -> OutboxTables.defaults().withSchema(v)),
                Named.of("OutboxTables.withEvents", v -> OutboxTables.defaults().withEvents(v)),
                Named.of("OutboxRoles' application", v -> new OutboxRoles(v, "relay", "worker", "operator")));
    }

    /** A schema, table or role name (outbox-flyway, below LogText) is shown only when short and printable. */
    @ParameterizedTest
    @MethodSource("names")
    void aRefusedNameIsShownOnlyWhenShortAndPrintable(Consumer<String> setting) {
        assertThatThrownBy(() -> setting.accept(HOSTILE))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> org.assertj.core.api.Assertions.assertThat(e.getMessage())
                        .endsWith("got a value of " + HOSTILE.length() + " characters that is not one")
                        .hasSizeLessThan(1_000)
                        .doesNotContain("\n", "\u001b"));
        assertThatThrownBy(() -> setting.accept("Orders")).hasMessageEndingWith("got 'Orders'");
    }
}
