/**
 * Test services for the outbox's own tests (and for applications that want the same set-up).
 *
 * <p>PostgreSQL is resolved in this order: {@code OUTBOX_TEST_JDBC_URL} (with
 * {@code OUTBOX_TEST_JDBC_USER}, {@code OUTBOX_TEST_JDBC_PASSWORD}); a server on 127.0.0.1:5432
 * (user {@code postgres}); a Testcontainers PostgreSQL when Docker is available; an embedded
 * PostgreSQL. RabbitMQ: {@code OUTBOX_TEST_AMQP_URI}; a broker on 127.0.0.1:5672 (guest/guest); a
 * Testcontainers RabbitMQ when Docker is available; otherwise the test fails and says how to provide
 * one. {@link dev.outbox.testing.PostgresSchemaExtension} gives a test class a fresh migrated schema
 * and drops it afterwards; {@link dev.outbox.testing.RabbitExtension} names broker resources unique to
 * the test and deletes them afterwards.
 */
@NullMarked
package dev.outbox.testing;

import org.jspecify.annotations.NullMarked;
