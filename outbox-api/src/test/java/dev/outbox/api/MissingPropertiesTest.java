package dev.outbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.jspecify.annotations.NullUnmarked;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The rule for reading a stored event into the handler's class: a missing primitive, and in a
 * {@code @NullMarked} scope (this package is one) a missing or null component without
 * {@code @Nullable}, is an error; {@code @Nullable} components may be missing or null; unknown
 * properties are ignored (a newer producer may add fields).
 */
class MissingPropertiesTest {

    private final EventSerializer serializer = EventSerializer.jackson();

    record Numbered(int number) {}

    record Named(String name) {}

    record Labels(java.util.Map<String, Integer> labels) {}

    record Noted(
            String name, @Nullable String note, @Nullable List<String> tags) {}

    @NullUnmarked
    static final class Unmarked {
        record Named(String name) {}
    }

    @Test
    void refusesAPayloadMissingAPrimitiveInsteadOfReadingZero() {
        assertThatThrownBy(() -> serializer.deserialize("{\"n\":1}", Numbered.class))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("cannot read an event of class " + Numbered.class.getName());
        assertThatThrownBy(() -> serializer.deserialize("{\"number\":null}", Numbered.class))
                .isInstanceOf(OutboxException.class);
    }

    @Test
    void refusesAPayloadMissingANonNullComponentOfANullMarkedRecord() {
        assertThatThrownBy(() -> serializer.deserialize("{\"n\":1}", Named.class))
                .isInstanceOf(OutboxException.class);
        assertThatThrownBy(() -> serializer.deserialize("{\"name\":null}", Named.class))
                .isInstanceOf(OutboxException.class);
    }

    @Test
    void readsMissingOrNullNullableComponentsAsNull() {
        assertThat(serializer.deserialize("{\"name\":\"a\"}", Noted.class)).isEqualTo(new Noted("a", null, null));
        assertThat(serializer.deserialize("{\"name\":\"a\",\"note\":null,\"tags\":null}", Noted.class))
                .isEqualTo(new Noted("a", null, null));
    }

    @Test
    void ignoresUnknownProperties() {
        assertThat(serializer.deserialize("{\"number\":7,\"addedLater\":{\"x\":1}}", Numbered.class))
                .isEqualTo(new Numbered(7));
    }

    @Test
    void leavesRecordsOutsideANullMarkedScopeToJacksonsDefaults() {
        assertThat(serializer.deserialize("{}", Unmarked.Named.class)).isEqualTo(new Unmarked.Named(null));
    }

    @Test
    void neverPrintsThePayloadWhenItRefuses() {
        assertThatThrownBy(() -> serializer.deserialize("{\"number\":\"secret-value\"}", Numbered.class))
                .hasMessageNotContaining("secret");
    }

    @Test
    void namesAMapEntryWithoutItsKeyWhenAValueDoesNotFit() {
        assertThatThrownBy(() -> serializer.deserialize("{\"labels\":{\"secret-key\":\"not a number\"}}", Labels.class))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining(" at $.labels.<key> (")
                .hasMessageNotContaining("secret");
    }
}
