package dev.outbox.relay;

import java.sql.Connection;

/**
 * Opens the connection a looping relay holds to {@code LISTEN} for new events. It is held for as
 * long as the relay runs, so it should not come from a small pool; it must be a PostgreSQL JDBC
 * connection (or unwrap to one). Failures are thrown unchecked (wrap an {@code SQLException}).
 */
@FunctionalInterface
public interface ListenConnection {

    Connection open();
}
