package dev.outbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.NullUnmarked;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * What is recorded can be read: an event whose JSON the worker's reading rules would refuse (a null
 * where the class says none may be, in this {@code @NullMarked} package) is refused when it is
 * written, naming the path, instead of failing {@code undeserializable_event} for good later.
 */
class UnreadableEventsTest {

    private final EventSerializer serializer = EventSerializer.jackson();

    record Named(String name) {}

    record Line(String sku, int quantity) {}

    record Order(String id, List<Line> lines) {}

    record Noted(String name, @Nullable String note) {}

    @NullUnmarked
    static final class Unmarked {
        record Named(String name) {}
    }

    /** Written by its getter, read by nothing in Java (no creator): other consumers may read it. */
    static final class WriteOnly {
        public @Nullable String getLabel() {
            return null;
        }
    }

    @Test
    void refusesANullNonNullableComponentNamingItsPath() {
        assertThatThrownBy(() -> serializer.serialize("person.named", new Named(null)))
                .isInstanceOf(EventEncodingException.class)
                .hasMessageStartingWith("cannot record event of type 'person.named': $.name is null")
                .extracting(e -> ((EventEncodingException) e).path())
                .isEqualTo("$.name");
    }

    @Test
    void namesANullDeepInsideByItsPath() {
        Order order = new Order("o-1", Arrays.asList(new Line("a", 1), new Line(null, 2)));

        assertThatThrownBy(() -> serializer.serialize("order.placed", order))
                .isInstanceOf(EventEncodingException.class)
                .extracting(e -> ((EventEncodingException) e).path())
                .isEqualTo("$.lines[1].sku");
    }

    @Test
    void recordsNullsWhereTheClassAllowsThem() {
        assertThat(serializer.serialize("person.noted", new Noted("a", null)))
                .isEqualTo("{\"name\":\"a\",\"note\":null}");
        assertThat(serializer.serialize("person.named", new Unmarked.Named(null)))
                .isEqualTo("{\"name\":null}");
        assertThat(serializer.serialize("label", new WriteOnly())).isEqualTo("{\"label\":null}");
    }
}
