package dev.outbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class JacksonEventSerializerTest {

    private final EventSerializer serializer = EventSerializer.jackson();

    enum Channel {
        EMAIL,
        SMS
    }

    record Line(String sku, int quantity, BigDecimal price) {}

    record Address(String street, @Nullable String city) {}

    record Order(long id, Channel channel, Address address, List<Line> lines, Map<String, String> labels) {}

    record Times(
            @Nullable Instant instant,
            @Nullable OffsetDateTime offsetDateTime,
            @Nullable LocalDate localDate,
            @Nullable Duration duration) {}

    record Amount(BigDecimal value) {}

    record Marker() {}

    record Scores(double score, float ratio) {}

    record Text(String text) {}

    record Labels(Map<String, Integer> labels) {}

    record Dated(Date at) {}

    record Optionals(Optional<String> note) {}

    record Holder(Object value) {}

    static final class Opaque {
        @SuppressWarnings("unused")
        private final int hidden = 1;
    }

    private <T> T roundTrip(T event, Class<T> type) {
        return serializer.deserialize(serializer.serialize("test.event", event), type);
    }

    @Test
    void roundTripsARecordWithAnEnumNestedObjectsListsAndAStringKeyedMap() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("priority", "high");
        labels.put("späť ✓ 😀", "unicode keys and values 😀");
        Order order = new Order(
                42L,
                Channel.SMS,
                new Address("Main St 1", null),
                List.of(new Line("A-1", 2, new BigDecimal("9.99")), new Line("B-2", 1, new BigDecimal("100"))),
                labels);

        assertThat(roundTrip(order, Order.class)).isEqualTo(order);
    }

    @Test
    void writesEnumsByName() {
        assertThat(serializer.serialize("t", new Order(1L, Channel.EMAIL, new Address("s", "c"), List.of(), Map.of())))
                .contains("\"channel\":\"EMAIL\"");
    }

    @Test
    void roundTripsJavaTimeValuesAsIsoText() {
        Times times = new Times(
                Instant.parse("2024-01-02T03:04:05.123456789Z"),
                OffsetDateTime.parse("2024-01-02T03:04:05+02:00"),
                LocalDate.of(2024, 2, 29),
                Duration.ofMillis(1500));

        String json = serializer.serialize("t", times);

        assertThat(json)
                .contains(
                        "\"instant\":\"2024-01-02T03:04:05.123456789Z\"",
                        "\"offsetDateTime\":\"2024-01-02T03:04:05+02:00\"",
                        "\"localDate\":\"2024-02-29\"",
                        "\"duration\":\"PT1.5S\"");
        assertThat(serializer.deserialize(json, Times.class)).isEqualTo(times);
    }

    @Test
    void keepsTheScaleOfBigDecimals() {
        assertThat(serializer.serialize("t", new Amount(new BigDecimal("10.50"))))
                .isEqualTo("{\"value\":10.50}");
        assertThat(serializer.serialize("t", new Amount(new BigDecimal("10")))).isEqualTo("{\"value\":10}");
        assertThat(roundTrip(new Amount(new BigDecimal("10.50")), Amount.class))
                .isEqualTo(new Amount(new BigDecimal("10.50")));
    }

    @Test
    void acceptsABigDecimalBeyondTheRangeOfDouble() {
        Amount huge = new Amount(new BigDecimal("1E+400"));
        assertThat(roundTrip(huge, Amount.class)).isEqualTo(huge);
    }

    @Test
    void roundTripsFiniteDoublesAndFloats() {
        Scores scores = new Scores(-0.125, 3.5f);
        assertThat(roundTrip(scores, Scores.class)).isEqualTo(scores);
    }

    @Test
    void writesARecordWithNoComponentsAsAnEmptyObject() {
        // nothing of the event is lost, unlike a class whose state Jackson cannot see
        assertThat(serializer.serialize("t", new Marker())).isEqualTo("{}");
        assertThat(roundTrip(new Marker(), Marker.class)).isEqualTo(new Marker());
    }

    @Test
    void acceptsATopLevelListOrMap() {
        assertThat(serializer.serialize("t", List.of(1, 2))).isEqualTo("[1,2]");
        assertThat(serializer.serialize("t", Map.of("a", 1))).isEqualTo("{\"a\":1}");
    }

    @Test
    void withModulesAddsTheModulesGivenAndKeepsTheDefaultsAndTheirRefusals() {
        SimpleModule upper = new SimpleModule("test-upper-case-text");
        upper.addSerializer(Text.class, new JsonSerializer<Text>() {
            @Override
            public void serialize(Text value, JsonGenerator gen, SerializerProvider serializers) throws IOException {
                gen.writeStartObject();
                gen.writeStringField("text", value.text().toUpperCase(Locale.ROOT));
                gen.writeEndObject();
            }
        });
        JacksonEventSerializer withUpper = JacksonEventSerializer.withModules(upper);

        assertThat(withUpper.serialize("test.event", new Text("abc"))).isEqualTo("{\"text\":\"ABC\"}");
        assertThat(withUpper.serialize(
                        "test.event", new Times(Instant.parse("2026-01-02T03:04:05Z"), null, null, null)))
                .as("java.time as ISO text, as by default")
                .contains("\"2026-01-02T03:04:05Z\"");
        assertThatThrownBy(() -> withUpper.serialize("test.event", new Dated(new Date(0))))
                .isInstanceOf(EventEncodingException.class)
                .hasMessageContaining("java.util.Date");
    }

    @Test
    void withModulesRegistersAModuleGivenBeforeAFoundOneOfTheSameType() {
        // jackson-datatype-jsr310 is found on the class path; a JavaTimeModule given here comes first
        // and the found one is skipped, so what the given one is set up with applies
        JavaTimeModule durationsAsText = new JavaTimeModule();
        durationsAsText.addSerializer(Duration.class, new JsonSerializer<Duration>() {
            @Override
            public void serialize(Duration value, JsonGenerator gen, SerializerProvider serializers)
                    throws IOException {
                gen.writeString(value.getSeconds() + " seconds");
            }
        });

        assertThat(JacksonEventSerializer.withModules(durationsAsText)
                        .serialize("test.event", new Times(null, null, null, Duration.ofSeconds(90))))
                .contains("\"90 seconds\"");
    }

    @Test
    void ignoresUnknownPropertiesWhenReading() {
        assertThat(serializer.deserialize("{\"text\":\"x\",\"addedLater\":1}", Text.class))
                .isEqualTo(new Text("x"));
    }

    @Test
    void refusesToReadJsonOfTheWrongShapeNamingThePathButNotThePayload() {
        assertThatThrownBy(() -> serializer.deserialize("{\"value\":\"secret-not-a-number\"}", Amount.class))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("$.value")
                .hasMessageNotContaining("secret");
    }

    static Stream<Arguments> unstorableEvents() {
        return Stream.of(
                Arguments.of("NaN double", new Scores(Double.NaN, 1f), "$.score", "NaN"),
                Arguments.of("+Infinity double", new Scores(Double.POSITIVE_INFINITY, 1f), "$.score", "infinite"),
                Arguments.of("-Infinity double", new Scores(Double.NEGATIVE_INFINITY, 1f), "$.score", "infinite"),
                Arguments.of("NaN float", new Scores(1.0, Float.NaN), "$.ratio", "NaN"),
                Arguments.of("+Infinity float", new Scores(1.0, Float.POSITIVE_INFINITY), "$.ratio", "infinite"),
                Arguments.of("-Infinity float", new Scores(1.0, Float.NEGATIVE_INFINITY), "$.ratio", "infinite"),
                Arguments.of("NaN in a nested list", new Holder(List.of(1.0, Double.NaN)), "$.value[1]", "NaN"),
                Arguments.of(
                        "unpaired high surrogate", new Text("ab\uD83D"), "$.text", "unpaired surrogate at index 2"),
                Arguments.of("unpaired low surrogate", new Text("\uDE00ab"), "$.text", "unpaired surrogate at index 0"),
                Arguments.of("reversed surrogate pair", new Text("\uDE00\uD83D"), "$.text", "unpaired surrogate"),
                Arguments.of(
                        "unpaired high surrogate in a map key",
                        new Labels(Map.of("k\uD83D", 1)),
                        "$.labels.<key #0>",
                        "has a key that contains an unpaired surrogate"),
                Arguments.of(
                        "unpaired low surrogate in a map key",
                        new Labels(Map.of("\uDE00", 1)),
                        "$.labels.<key #0>",
                        "has a key that contains an unpaired surrogate"),
                Arguments.of("\\u0000 in a value", new Text("a\u0000b"), "$.text", "\\u0000"),
                Arguments.of("\\u0000 in a map key", new Labels(Map.of("a\u0000", 1)), "$.labels.<key #0>", "\\u0000"),
                Arguments.of("java.util.Date", new Dated(new Date(0)), "$.at", "java.util.Date"),
                Arguments.of(
                        "java.sql.Timestamp, a Date",
                        new Holder(new java.sql.Timestamp(0)),
                        "$.value",
                        "java.util.Date"),
                Arguments.of("Optional", new Optionals(Optional.of("x")), "$.note", "Optional"),
                Arguments.of("empty Optional", new Optionals(Optional.empty()), "$.note", "Optional"),
                Arguments.of("object with no properties", new Opaque(), "$", "no stable JSON form"),
                Arguments.of(
                        "nested object with no properties", new Holder(new Opaque()), "$.value", "no stable JSON form"),
                Arguments.of("a Class", new Holder(String.class), "$.value", "not data"),
                Arguments.of("a Thread", new Holder(Thread.currentThread()), "$.value", "not data"),
                Arguments.of("a byte array", new Holder(new byte[] {1, 2}), "$.value", "no JSON form (BINARY)"),
                Arguments.of("top-level string", "just text", "$", "must be a JSON object or array"),
                Arguments.of("top-level number", 42, "$", "must be a JSON object or array"),
                Arguments.of("top-level boolean", true, "$", "must be a JSON object or array"),
                Arguments.of("top-level enum", Channel.SMS, "$", "must be a JSON object or array"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unstorableEvents")
    void refusesAValueThatCannotBeStoredNamingItsPath(String what, Object event, String path, String problem) {
        assertThatThrownBy(() -> serializer.serialize("order.placed", event))
                .isInstanceOfSatisfying(
                        EventEncodingException.class, e -> assertThat(e.path()).isEqualTo(path))
                .hasMessageContaining("'order.placed'")
                .hasMessageContaining(path + " ")
                .hasMessageContaining(problem);
    }

    @Test
    void namesAMapEntryByItsPositionNeverByItsKeyWhichIsPayloadData() {
        Map<String, Integer> labels = new LinkedHashMap<>();
        labels.put("customer-jane.doe@example.com", 1);
        labels.put("it's\u0000", 2);
        assertThatThrownBy(() -> serializer.serialize("t", new Labels(labels)))
                .isInstanceOfSatisfying(
                        EventEncodingException.class, e -> assertThat(e.path()).isEqualTo("$.labels.<key #1>"))
                .hasMessage(
                        "cannot record event of type 't': $.labels.<key #1> has a key that contains \\u0000 at index 4, which jsonb refuses")
                .hasMessageNotContaining("it's")
                .hasMessageNotContaining("jane");
        Map<String, Object> nested = new LinkedHashMap<>();
        nested.put("secret-key", List.of(new Scores(1.0, 2f), new Scores(Double.NaN, 1f)));
        assertThatThrownBy(() -> serializer.serialize("t", new Holder(nested)))
                .isInstanceOfSatisfying(
                        EventEncodingException.class, e -> assertThat(e.path()).isEqualTo("$.value.<key #0>[1].score"))
                .hasMessageNotContaining("secret");
    }

    @Test
    void namesThePropertiesOfABeanOrRecordWhichAreCode() {
        assertThatThrownBy(() -> serializer.serialize("t", new Holder(List.of(new Text("ok"), new Text("bad\u0000")))))
                .isInstanceOfSatisfying(
                        EventEncodingException.class, e -> assertThat(e.path()).isEqualTo("$.value[1].text"));
    }

    @Test
    void preparesAClassItCannotReadWithoutThrowingAndStillRefusesItsEvents() {
        EventSerializer jackson = EventSerializer.jackson();
        jackson.prepare(Unreadable.class);
        assertThatThrownBy(() -> jackson.deserialize("{\"x\":1}", Unreadable.class))
                .hasMessageContaining("cannot read an event of class " + Unreadable.class.getName());
        jackson.prepare(Amount.class);
        assertThat(jackson.deserialize("{\"value\":7}", Amount.class)).isEqualTo(new Amount(new BigDecimal("7")));
    }

    /** No creator Jackson can use: an interface. */
    interface Unreadable {}
}
