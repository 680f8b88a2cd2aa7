package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.TestPostgres;
import java.util.ArrayList;
import java.util.List;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts a real Boot application on a test class's schema: Boot's DataSource, Flyway and jOOQ there, and ours. */
final class BootApps {

    private BootApps() {}

    static ConfigurableApplicationContext start(PostgresSchemaExtension db, Class<?> app, String... extra) {
        return start(db, app, WebApplicationType.NONE, extra);
    }

    /** With a servlet web server on a free port ({@code local.server.port}), for the actuator over HTTP. */
    static ConfigurableApplicationContext startWeb(PostgresSchemaExtension db, Class<?> app, String... extra) {
        List<String> properties = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1"));
        properties.addAll(List.of(extra));
        return start(db, app, WebApplicationType.SERVLET, properties.toArray(String[]::new));
    }

    private static ConfigurableApplicationContext start(PostgresSchemaExtension db, Class<?> app, WebApplicationType web, String... extra) {
        TestPostgres pg = db.server();
        List<String> properties = new ArrayList<>(List.of(
                "spring.datasource.url=" + pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + db.schema(),
                "spring.datasource.username=" + pg.user(),
                "spring.datasource.password=" + pg.password(),
                "spring.flyway.default-schema=" + db.schema(),
                "spring.flyway.schemas=" + db.schema(),
                "spring.main.banner-mode=off",
                "outbox.schema=" + db.schema()));
        properties.addAll(List.of(extra));
        return new SpringApplicationBuilder(app).web(web).properties(properties.toArray(String[]::new)).run();
    }

    /** The rows of {@code table} in the test class's schema that match {@code condition}, read outside the application. */
    static int count(PostgresSchemaExtension db, String table, String condition) {
        return DSL.using(db.dataSource(), SQLDialect.POSTGRES).fetchCount(DSL.table(DSL.name(db.schema(), table)), DSL.condition(condition));
    }
}
