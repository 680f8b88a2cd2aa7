package dev.outbox.faults;

import dev.outbox.api.EventType;

/** An ordinary event of the suite: its handler succeeds. */
@EventType("fault.event")
public record FaultEvent(long sequence, String note) {}
