package dev.outbox.spring.boot.autoconfigure;

import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/**
 * Tells Boot that {@link OutboxMigrationsInitializer} beans initialize the database. Its order (2)
 * is above that of Boot's Flyway detectors (1), so the outbox migrations run after the application's
 * own Flyway migrations, and before every bean that depends on database initialization.
 */
public final class OutboxMigrationsDatabaseInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    static final int ORDER = 2;

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(OutboxMigrationsInitializer.class);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
