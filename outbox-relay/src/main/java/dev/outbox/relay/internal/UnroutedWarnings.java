package dev.outbox.relay.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * When to warn about an event type without a route: the first time a relay sees it, then at most
 * once per {@link #INTERVAL} while its events keep waiting, so one forgotten route is a line every
 * ten minutes, not one per pass (86,400 a day at {@code --sleep=1}). The count stays in
 * {@code status} ("unrouted events") and every pass's {@code PassResult.unroutedEventTypes()}.
 */
final class UnroutedWarnings {

    static final Duration INTERVAL = Duration.ofMinutes(10);
    /** Bounds the memory of a relay that sees many distinct unrouted types; past it, the oldest entries go. */
    static final int MAX_TYPES = 10_000;

    private final Map<String, Instant> lastWarned = new HashMap<>();

    /** Whether to warn about {@code eventType} seen unrouted at {@code now}; remembers a yes. */
    boolean due(String eventType, Instant now) {
        Instant last = lastWarned.get(eventType);
        if (last != null && now.isBefore(last.plus(INTERVAL)) && !now.isBefore(last)) {
            return false;
        }
        if (lastWarned.size() >= MAX_TYPES) {
            lastWarned.values().removeIf(at -> !now.isBefore(at.plus(INTERVAL)));
            if (lastWarned.size() >= MAX_TYPES) {
                lastWarned.clear();
            }
        }
        lastWarned.put(eventType, now);
        return true;
    }
}
