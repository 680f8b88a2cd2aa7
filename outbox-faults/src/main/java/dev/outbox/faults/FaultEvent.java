package dev.outbox.faults;

import dev.outbox.api.EventType;

/**
 * An ordinary event of the suite. Its handler succeeds, unless its note says {@link #FLAKY} (a
 * retryable failure on the first attempt) or {@link #TERMINAL} (a failure for good until the suite
 * heals the event).
 */
@EventType("fault.event")
public record FaultEvent(long sequence, String note) {

    static final String ORDINARY = "ordinary";
    static final String FLAKY = "flaky";
    static final String TERMINAL = "terminal";
}
