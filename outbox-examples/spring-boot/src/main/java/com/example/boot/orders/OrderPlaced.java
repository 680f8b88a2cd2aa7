package com.example.boot.orders;

import dev.outbox.api.EventType;

/** The integration event of a placed order; its type is a name we chose, stable across renames. */
@EventType("boot.order.placed")
public record OrderPlaced(String orderId, String email) {}
