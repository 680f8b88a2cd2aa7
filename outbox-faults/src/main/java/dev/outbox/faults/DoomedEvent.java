package dev.outbox.faults;

import dev.outbox.api.EventType;

/** An event whose handler fails with a retryable error on every attempt, so its retries run out. */
@EventType("fault.doomed")
public record DoomedEvent(long sequence, String note) {}
