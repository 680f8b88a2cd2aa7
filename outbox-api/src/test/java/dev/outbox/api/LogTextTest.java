package dev.outbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogTextTest {

    @Test
    void leavesPlainTextAlone() {
        assertThat(LogText.of("send-confirmation")).isEqualTo("send-confirmation");
        assertThat(LogText.of("zażółć 😀")).isEqualTo("zażółć 😀");
        assertThat(LogText.of(null)).isEqualTo("null");
    }

    @Test
    void escapesEverythingThatCouldStartAForgedLine() {
        assertThat(LogText.of("a\n12:00:00.000 ERROR x")).isEqualTo("a\\u000a12:00:00.000 ERROR x");
        assertThat(LogText.of("a\rb\u0085c\u2028d\u2029e\u0000f\u001bg\u007f"))
                .isEqualTo("a\\u000db\\u0085c\\u2028d\\u2029e\\u0000f\\u001bg\\u007f");
        assertThat(LogText.of("\u202Eevil\u2066")).isEqualTo("\\u202eevil\\u2066");
    }

    @Test
    void escapesTheBackslashSoThatAnEscapeInTheOutputIsAlwaysOurs() {
        assertThat(LogText.of("a\\u000ab")).isEqualTo("a\\u005cu000ab");
    }

    @Test
    void escapesUnpairedSurrogates() {
        assertThat(LogText.of("a\uD800b\uDC00")).isEqualTo("a\\ud800b\\udc00");
    }

    @Test
    void boundsALongValueAndSaysHowMuchWasCut() {
        String printed = LogText.of("x".repeat(1 << 20));
        assertThat(printed)
                .isEqualTo("x".repeat(LogText.MAX_CHARS) + "…(+" + ((1 << 20) - LogText.MAX_CHARS) + " chars)");
    }

    @Test
    void neverCutsASurrogatePair() {
        String value = "x".repeat(LogText.MAX_CHARS - 1) + "😀" + "y";
        assertThat(LogText.of(value)).isEqualTo("x".repeat(LogText.MAX_CHARS - 1) + "…(+3 chars)");
    }
}
