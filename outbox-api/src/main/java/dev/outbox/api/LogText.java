package dev.outbox.api;

import org.jspecify.annotations.Nullable;

/**
 * The one rule for printing a value that came from outside (a message body or header, a routes file,
 * an API argument, a row another program may have written) in a log line or an exception message:
 * at most {@value #MAX_CHARS} characters, and nothing that could end the line or fake another one.
 *
 * <p>Escaped as {@code \}{@code uXXXX}: every control character (C0, DEL, C1, which includes
 * {@code \n}, {@code \r} and NEL), the Unicode line and paragraph separators (U+2028, U+2029), the
 * bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069) that reorder what a reader
 * sees, unpaired surrogates, and the backslash itself, so that an escape in the output always means
 * the printer wrote it. A longer value is cut (never inside a surrogate pair) and ends with
 * {@code …(+N chars)}. {@code null} prints as {@code null}.
 *
 * <pre>{@code
 * log.warn("message names job type {}", LogText.of(message.jobType()));
 * }</pre>
 */
public final class LogText {

    /** The most characters of a value that are printed. */
    public static final int MAX_CHARS = 200;

    private LogText() {}

    /** {@code value} bounded and escaped for one log line. */
    public static String of(@Nullable CharSequence value) {
        if (value == null) {
            return "null";
        }
        int length = value.length();
        int end = Math.min(length, MAX_CHARS);
        if (end < length
                && Character.isHighSurrogate(value.charAt(end - 1))
                && Character.isLowSurrogate(value.charAt(end))) {
            end--; // do not split a pair
        }
        StringBuilder b = null;
        for (int i = 0; i < end; i++) {
            char c = value.charAt(i);
            boolean pair =
                    Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(value.charAt(i + 1));
            if (pair) {
                if (b != null) {
                    b.append(c).append(value.charAt(i + 1));
                }
                i++;
            } else if (needsEscape(c)) {
                if (b == null) {
                    b = new StringBuilder(end + 16).append(value, 0, i);
                }
                b.append(String.format("\\u%04x", (int) c));
            } else if (b != null) {
                b.append(c);
            }
        }
        if (end == length) {
            return b == null ? value.toString() : b.toString();
        }
        if (b == null) {
            b = new StringBuilder(end + 16).append(value, 0, end);
        }
        return b.append("…(+").append(length - end).append(" chars)").toString();
    }

    private static boolean needsEscape(char c) {
        return c < 0x20
                || (c >= 0x7F && c <= 0x9F)
                || c == '\\'
                || c == '\u2028'
                || c == '\u2029'
                || (c >= '\u202A' && c <= '\u202E')
                || (c >= '\u2066' && c <= '\u2069')
                || Character.isSurrogate(c); // a paired one never gets here
    }
}
