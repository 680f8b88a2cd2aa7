package dev.outbox.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The operator's arguments are quoted in a refusal as {@code LogText} does: a bounded prefix, control characters escaped. */
class RefusalQuotingTest {

    private static final String HOSTILE = "bad\n\u001b[31m" + "x".repeat(1 << 20);

    @Test
    void quotesABadFailureReasonBoundedAndEscaped() {
        assertThatThrownBy(() -> FailedFilter.all().reason(HOSTILE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 'bad\\u000a\\u001b[31mxxx")
                .satisfies(e -> assertThat(e.getMessage())
                        .contains("…(+")
                        .hasSizeLessThan(1_000)
                        .doesNotContain("\n", "\u001b"));
    }

    @Test
    void quotesABadPageCursorBoundedAndEscaped() {
        assertThatThrownBy(() -> FailedPage.Cursor.parse(HOSTILE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 'bad\\u000a\\u001b[31mxxx")
                .satisfies(e -> assertThat(e.getMessage())
                        .contains("…(+")
                        .hasSizeLessThan(1_000)
                        .doesNotContain("\n", "\u001b"));
    }
}
