package dev.outbox.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code serialize} accepts, {@code deserialize} can read: the read limits of Jackson
 * ({@link StreamReadConstraints}, the same object on both sides) are checked when the event is
 * written, naming the field's path; so is PostgreSQL's numeric range and the size of a jsonb value.
 */
class PayloadLimitsTest {

    private final EventSerializer serializer = EventSerializer.jackson();
    private static final StreamReadConstraints LIMITS = StreamReadConstraints.defaults();

    record Text(String text) {}

    record Amount(BigDecimal value) {}

    record Count(BigInteger value) {}

    record Labels(Map<String, Integer> labels) {}

    record Holder(Object value) {}

    @Test
    void theDefaultsAreJacksonsReadDefaults() {
        assertThat(LIMITS.getMaxStringLength()).isEqualTo(20_000_000);
        assertThat(LIMITS.getMaxNumberLength()).isEqualTo(1_000);
        assertThat(LIMITS.getMaxNestingDepth()).isEqualTo(1_000);
        assertThat(LIMITS.getMaxNameLength()).isEqualTo(50_000);
    }

    @Test
    void recordsAStringOfTheLongestReadableLengthAndReadsItBack() {
        Text longest = new Text("x".repeat(LIMITS.getMaxStringLength()));
        assertThat(serializer.deserialize(serializer.serialize("t", longest), Text.class))
                .isEqualTo(longest);
    }

    @Test
    void refusesAStringLongerThanAReaderAcceptsNamingItsPath() {
        Text tooLong = new Text("x".repeat(LIMITS.getMaxStringLength() + 1));
        assertThatThrownBy(() -> serializer.serialize("order.placed", tooLong))
                .isInstanceOfSatisfying(
                        EventEncodingException.class, e -> assertThat(e.path()).isEqualTo("$.text"))
                .hasMessage(
                        "cannot record event of type 'order.placed': $.text is a string of 20000001 characters, more than a reader"
                                + " accepts (20000000)");
    }

    @Test
    void refusesANumberWithMoreDigitsThanAReaderAccepts() {
        assertThat(serializer
                        .deserialize(
                                serializer.serialize("t", new Count(new BigInteger("9".repeat(1000)))), Count.class)
                        .value())
                .hasToString("9".repeat(1000));
        assertThatThrownBy(() -> serializer.serialize("t", new Count(new BigInteger("9".repeat(1501)))))
                .isInstanceOfSatisfying(
                        EventEncodingException.class, e -> assertThat(e.path()).isEqualTo("$.value"))
                .hasMessageContaining(
                        "$.value is a number of 1501 digits as stored, more than a reader accepts (1000)");
    }

    @Test
    void countsTheDigitsOfANumberAsPostgresqlPrintsItBack() {
        // jsonb keeps numeric and prints it in plain notation: 1E+999 comes back as 1 and 999 zeros, 1E+1000 as 1001
        // digits
        assertThat(serializer.serialize("t", new Amount(new BigDecimal("1E+999"))))
                .isEqualTo("{\"value\":1E+999}");
        assertThat(serializer
                        .deserialize("{\"value\":1" + "0".repeat(999) + "}", Amount.class)
                        .value())
                .isEqualByComparingTo(new BigDecimal("1E+999"));
        assertThatThrownBy(() -> serializer.serialize("t", new Amount(new BigDecimal("1E+1000"))))
                .hasMessageContaining("$.value is a number of 1001 digits as stored");
        assertThatThrownBy(() -> serializer.serialize("t", new Amount(new BigDecimal("1E-1000"))))
                .hasMessageContaining("$.value is a number of 1001 digits as stored");
        assertThatThrownBy(() -> serializer.serialize("t", new Amount(new BigDecimal("1E+200000"))))
                .hasMessageContaining("$.value is a number beyond PostgreSQL's numeric range");
        assertThat(serializer.serialize("t", new Holder(List.of(Double.MAX_VALUE, Double.MIN_VALUE, -0.125))))
                .contains("1.7976931348623157E308");
    }

    @Test
    void refusesNestingDeeperThanAReaderAccepts() {
        assertThat(serializer.deserialize(
                        serializer.serialize("t", nested(LIMITS.getMaxNestingDepth() - 1)), Holder.class))
                .isNotNull();
        assertThatThrownBy(() -> serializer.serialize("t", nested(LIMITS.getMaxNestingDepth())))
                .isInstanceOfSatisfying(
                        EventEncodingException.class, e -> assertThat(e.path()).startsWith("$.value[0][0]"))
                .hasMessageContaining("is nested deeper than 1000 levels, more than a reader accepts");
    }

    /** A Holder (one level) around {@code lists} nested lists. */
    private static Holder nested(int lists) {
        List<Object> inner = new ArrayList<>();
        Object value = inner;
        for (int i = 1; i < lists; i++) {
            value = List.of(value);
        }
        return new Holder(value);
    }

    @Test
    void refusesAKeyLongerThanAReaderAcceptsWithoutPrintingIt() {
        Map<String, Integer> labels = new LinkedHashMap<>();
        labels.put("k".repeat(LIMITS.getMaxNameLength() + 1), 1);
        assertThatThrownBy(() -> serializer.serialize("t", new Labels(labels)))
                .isInstanceOfSatisfying(
                        EventEncodingException.class, e -> assertThat(e.path()).isEqualTo("$.labels.<key #0>"))
                .hasMessageContaining("has a key of 50001 characters, more than a reader accepts (50000)")
                .hasMessageNotContaining("kkk");
    }

    @Test
    void followsTheLimitsOfAnObjectMapperOfYourOwn() {
        JsonMapper strict = JsonMapper.builder().build();
        strict.getFactory()
                .setStreamReadConstraints(StreamReadConstraints.builder()
                        .maxStringLength(10)
                        .maxNumberLength(5)
                        .build());
        EventSerializer own = JacksonEventSerializer.using(strict);
        assertThat(own.serialize("t", new Text("x".repeat(10)))).isEqualTo("{\"text\":\"xxxxxxxxxx\"}");
        assertThatThrownBy(() -> own.serialize("t", new Text("x".repeat(11))))
                .hasMessageContaining("more than a reader accepts (10)");
        assertThatThrownBy(() -> own.serialize("t", new Holder(List.of(1.5e300))))
                .hasMessageContaining("$.value[0] is a number of 301 digits");
    }

    @Test
    void refusesAPayloadOverTheJsonbBudget() {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            parts.add("x".repeat(JacksonEventSerializer.MAX_PAYLOAD_BYTES / 2));
        }
        assertThatThrownBy(() -> serializer.serialize("t", new Holder(parts)))
                .isInstanceOfSatisfying(
                        EventEncodingException.class, e -> assertThat(e.path()).isEqualTo("$"))
                .hasMessageContaining("$ is 33554449 bytes of JSON, more than the 33554432 an event may hold");
    }
}
