/**
 * Spring Boot auto-configuration of the outbox: an {@link dev.outbox.api.Outbox} bean from the
 * {@code outbox.*} properties, to record through Boot's {@code DSLContext} inside the application's
 * transactions, the outbox migrations run as a database initializer (after the application's own
 * Flyway migrations, before anything that uses the {@code DSLContext}), the worker of the job handler
 * beans and, with {@code outbox.relay.enabled=true}, the relay. One module for Boot 4.0 and
 * 3.5: it uses only what both lines share and names the classes that moved by their two names.
 */
@NullMarked
package dev.outbox.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
