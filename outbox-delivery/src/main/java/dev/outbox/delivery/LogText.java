package dev.outbox.delivery;

import org.jspecify.annotations.Nullable;

/** {@link dev.outbox.api.LogText}, the one rule for printing a value that came from outside, under the name these modules print with. */
public final class LogText {

    /** The most characters of a value that are printed. */
    public static final int MAX_CHARS = dev.outbox.api.LogText.MAX_CHARS;

    private LogText() {}

    /** {@code value} bounded and escaped for one log line: {@link dev.outbox.api.LogText#of(CharSequence)}. */
    public static String of(@Nullable CharSequence value) {
        return dev.outbox.api.LogText.of(value);
    }
}
