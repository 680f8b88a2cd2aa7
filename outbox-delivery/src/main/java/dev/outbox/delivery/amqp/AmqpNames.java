package dev.outbox.delivery.amqp;

import dev.outbox.delivery.LogText;
import org.jspecify.annotations.Nullable;

/**
 * The one rule for the names the broker sees (queue, exchange, routing key), shared by routes, the
 * routes file and the worker's queue settings: AMQP 0-9-1 short strings count bytes, not characters.
 */
public final class AmqpNames {

    /** AMQP 0-9-1 short strings (queue, exchange, routing key, message type) hold at most this many bytes. */
    public static final int MAX_SHORT_STRING_BYTES = 255;

    /** The broker reserves queue names beginning with this for itself. */
    public static final String RESERVED_QUEUE_PREFIX = "amq.";

    private AmqpNames() {}

    /**
     * What is wrong with {@code value} as an AMQP short string (a queue, exchange or routing key), or
     * null when nothing is: at most {@value #MAX_SHORT_STRING_BYTES} bytes in UTF-8, valid Unicode (no
     * unpaired surrogate), no control character; non-empty unless {@code mayBeEmpty}.
     */
    public static @Nullable String shortStringProblem(@Nullable String value, boolean mayBeEmpty) {
        if (value == null) {
            return "must be a string, got null";
        }
        if (value.isEmpty() && !mayBeEmpty) {
            return "must be a non-empty string";
        }
        int bytes = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                return "must not contain a control character (U+" + String.format("%04X", (int) c) + " at index " + i
                        + ")";
            }
            if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                return "must be valid Unicode (an unpaired surrogate at index " + i + ")";
            } else {
                bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
            }
        }
        if (bytes > MAX_SHORT_STRING_BYTES) {
            return "must be at most " + MAX_SHORT_STRING_BYTES + " bytes in UTF-8 (an AMQP short string), got " + bytes
                    + " bytes";
        }
        return null;
    }

    /** Like {@link #shortStringProblem}, for a queue: also refuses the broker's reserved names {@code amq.*}. */
    public static @Nullable String queueProblem(@Nullable String queue) {
        String problem = shortStringProblem(queue, false);
        if (problem == null && queue != null && queue.startsWith(RESERVED_QUEUE_PREFIX)) {
            return "must not begin with '" + RESERVED_QUEUE_PREFIX + "' (reserved by the broker), got '"
                    + LogText.of(queue) + "'";
        }
        return problem;
    }
}
