/**
 * Spring application events recorded in the outbox: {@link dev.outbox.spring.OutboxEvent} marks an
 * event class with its stable type, {@link dev.outbox.spring.OutboxEventDetails} adds an ordering
 * key or an id, and {@link dev.outbox.spring.OutboxEventListener} records such an event in the
 * publisher's transaction while {@code publishEvent} runs. The annotation needs nothing but
 * {@code outbox-api}; the listener needs the application's Spring.
 */
@NullMarked
package dev.outbox.spring;

import org.jspecify.annotations.NullMarked;
