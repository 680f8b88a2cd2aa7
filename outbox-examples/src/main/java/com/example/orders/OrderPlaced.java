package com.example.orders;

import dev.outbox.api.EventType;
import java.math.BigDecimal;
import java.time.Instant;

/** The integration event; its type name is what routes and workers know it by, not the class name. */
@EventType("order.placed")
public record OrderPlaced(long orderId, String customer, BigDecimal total, Instant placedAt) {}
