package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import javax.sql.DataSource;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;

/**
 * Runs the outbox migrations when the context starts. A database initializer (see
 * {@link OutboxMigrationsDatabaseInitializerDetector}): Boot makes the {@code DSLContext}, and every
 * bean that depends on database initialization, wait for it. It is not a {@code Flyway} bean, so
 * Boot's own Flyway auto-configuration still runs the application's migrations.
 */
public final class OutboxMigrationsInitializer implements InitializingBean {

    private static final Logger log = LoggerFactory.getLogger(OutboxMigrationsInitializer.class);

    private final DataSource dataSource;
    private final OutboxTables tables;

    public OutboxMigrationsInitializer(DataSource dataSource, OutboxTables tables) {
        this.dataSource = dataSource;
        this.tables = tables;
    }

    /** The tables this initializer migrates. */
    public OutboxTables tables() {
        return tables;
    }

    @Override
    public void afterPropertiesSet() {
        MigrateResult result = OutboxMigrations.migrate(dataSource, tables);
        if (result.migrationsExecuted > 0) {
            log.info(
                    "outbox: schema '{}' was behind, applied {} outbox migration(s) up to version {} (history table {})",
                    tables.schema(),
                    result.migrationsExecuted,
                    result.targetSchemaVersion,
                    OutboxMigrations.HISTORY_TABLE);
        } else {
            log.info(
                    "outbox: schema '{}' is up to date (history table {})",
                    tables.schema(),
                    OutboxMigrations.HISTORY_TABLE);
        }
    }
}
