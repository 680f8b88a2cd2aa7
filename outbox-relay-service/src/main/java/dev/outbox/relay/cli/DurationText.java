package dev.outbox.relay.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The durations and times of the operator commands and {@code OUTBOX_RETENTION_*}: a duration is
 * whole numbers with a unit each, {@code d}, {@code h}, {@code m} or {@code s} ({@code 7d},
 * {@code 12h}, {@code 30m}, {@code 1d12h}); a time is an ISO-8601 instant
 * ({@code 2026-03-01T12:00:00Z}) or a duration meaning that long ago.
 */
final class DurationText {

    private static final Pattern WHOLE = Pattern.compile("(?:[0-9]{1,9}[dhms])+");
    private static final Pattern PART = Pattern.compile("([0-9]{1,9})([dhms])");
    /** The longest duration accepted: 100 years, in days. */
    private static final long MAX_DAYS = 36_500;

    private DurationText() {}

    /** A positive duration, or an {@link IllegalArgumentException} naming {@code what}. */
    static Duration parse(String text, String what) {
        String t = text.trim();
        if (!WHOLE.matcher(t).matches()) {
            throw new IllegalArgumentException(what + " must be a duration like 7d, 12h, 30m or 1d12h, got '"
                    + ServiceSettings.shown(text, 40) + "'");
        }
        Duration total = Duration.ZERO;
        Matcher m = PART.matcher(t);
        while (m.find()) {
            long n = Long.parseLong(m.group(1));
            total = total.plus(
                    switch (m.group(2)) {
                        case "d" -> Duration.ofDays(n);
                        case "h" -> Duration.ofHours(n);
                        case "m" -> Duration.ofMinutes(n);
                        default -> Duration.ofSeconds(n);
                    });
        }
        if (total.isZero() || total.compareTo(Duration.ofDays(MAX_DAYS)) > 0) {
            throw new IllegalArgumentException(what + " must be more than 0 and at most " + MAX_DAYS + "d, got '"
                    + ServiceSettings.shown(text, 40) + "'");
        }
        return total;
    }

    /** An instant, or {@code now} minus a duration. */
    static Instant time(String text, String what, Instant now) {
        String t = text.trim();
        if (!t.isEmpty() && Character.isDigit(t.charAt(0)) && t.contains("T")) {
            try {
                return Instant.parse(t);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(
                        what + " must be an ISO-8601 instant like 2026-03-01T12:00:00Z or a duration"
                                + " ago like 7d, got '" + ServiceSettings.shown(text, 40) + "'",
                        e);
            }
        }
        try {
            return now.minus(parse(t, what));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    what + " must be an ISO-8601 instant like 2026-03-01T12:00:00Z or a duration"
                            + " ago like 7d, got '" + ServiceSettings.shown(text, 40) + "'",
                    e);
        }
    }
}
