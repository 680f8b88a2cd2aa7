package dev.outbox.admin;

import dev.outbox.api.LogText;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One page of failed deliveries, oldest failure first.
 *
 * @param deliveries the page
 * @param next where the next page starts, or null when this page is the last
 */
public record FailedPage(
        List<FailedDelivery> deliveries, @Nullable Cursor next) {

    public FailedPage {
        deliveries = List.copyOf(deliveries);
    }

    public Optional<Cursor> nextPage() {
        return Optional.ofNullable(next);
    }

    /**
     * A position in the order of failed deliveries ({@code failed_at}, then id): a page starts after it.
     * Written as {@code 2026-03-01T12:00:00.123456Z/0190f1e2-...} by {@link #toString()} and read back by {@link #parse}.
     */
    public record Cursor(Instant failedAt, UUID id) {

        public static Cursor parse(String text) {
            int slash = text.indexOf('/');
            if (slash < 0) {
                throw new IllegalArgumentException(
                        "a page cursor is FAILED_AT/DELIVERY_ID as printed after a page, got '" + LogText.of(text)
                                + "'");
            }
            try {
                return new Cursor(Instant.parse(text.substring(0, slash)), UUID.fromString(text.substring(slash + 1)));
            } catch (DateTimeParseException | IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "a page cursor is FAILED_AT/DELIVERY_ID as printed after a page, got '" + LogText.of(text)
                                + "'",
                        e);
            }
        }

        @Override
        public String toString() {
            return failedAt + "/" + id;
        }
    }
}
