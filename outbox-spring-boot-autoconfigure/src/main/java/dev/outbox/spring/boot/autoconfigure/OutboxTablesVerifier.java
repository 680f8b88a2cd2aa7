package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.DatabaseUnavailableException;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.RelayException;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;

/**
 * With {@code outbox.flyway.enabled=false}: checks at startup that the application's own migrations made
 * the outbox tables, and made them as new as this version needs ({@link OutboxRelay#requireTables}). Tables
 * that are missing or behind fail the start with a message naming the schema, the tables or the migration,
 * instead of the driver's "relation does not exist" at the first recording.
 */
public final class OutboxTablesVerifier implements InitializingBean {

    static final String PROPERTY = "outbox.flyway.enabled";

    private final DataSource dataSource;
    private final OutboxTables tables;

    public OutboxTablesVerifier(DataSource dataSource, OutboxTables tables) {
        this.dataSource = dataSource;
        this.tables = tables;
    }

    /** @throws IllegalStateException naming {@value #PROPERTY} and what is missing */
    @Override
    public void afterPropertiesSet() {
        try {
            OutboxRelay.requireTables(dataSource, tables);
        } catch (DatabaseUnavailableException e) {
            throw e; // not a question of the tables
        } catch (RelayException e) {
            throw new IllegalStateException(
                    PROPERTY + "=false, and " + e.getMessage() + "; with " + PROPERTY
                            + "=true the application runs the outbox migrations at startup",
                    e);
        }
    }
}
