package dev.outbox.test;

import dev.outbox.api.EventType;

/** The event of the kit's tests. */
@EventType("parcel.shipped")
public record Shipped(long parcelId, String carrier) {}
