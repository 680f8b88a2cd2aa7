package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.delivery.amqp.AmqpAddress;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TestPostgres;
import java.util.ArrayList;
import java.util.List;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.util.ClassUtils;

/** Starts a real Boot application on a test class's schema: Boot's DataSource, Flyway and jOOQ there, and ours. */
final class BootApps {

    private BootApps() {}

    /** Our auto-configurations, those of the jars on the class path: Boot 3.5's health indicator is another module's. */
    static AutoConfigurations outboxAutoConfigurations() {
        List<Class<?>> classes = new ArrayList<>(List.of(
                OutboxAutoConfiguration.class,
                OutboxHealthAutoConfiguration.class,
                OutboxEndpointAutoConfiguration.class));
        String boot3 = "dev.outbox.spring.boot3.health.OutboxBoot3HealthAutoConfiguration";
        if (ClassUtils.isPresent(boot3, null)) {
            classes.add(ClassUtils.resolveClassName(boot3, null));
        }
        return AutoConfigurations.of(classes.toArray(Class<?>[]::new));
    }

    static ConfigurableApplicationContext start(PostgresSchemaExtension db, Class<?> app, String... extra) {
        return start(db, app, WebApplicationType.NONE, extra);
    }

    /** With a servlet web server on a free port ({@code local.server.port}), for the actuator over HTTP. */
    static ConfigurableApplicationContext startWeb(PostgresSchemaExtension db, Class<?> app, String... extra) {
        List<String> properties = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1"));
        properties.addAll(List.of(extra));
        return start(db, app, WebApplicationType.SERVLET, properties.toArray(String[]::new));
    }

    private static ConfigurableApplicationContext start(
            PostgresSchemaExtension db, Class<?> app, WebApplicationType web, String... extra) {
        TestPostgres pg = db.server();
        List<String> properties = new ArrayList<>(List.of(
                "spring.datasource.url=" + pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema="
                        + db.schema(),
                "spring.datasource.username=" + pg.user(),
                "spring.datasource.password=" + pg.password(),
                "spring.flyway.default-schema=" + db.schema(),
                "spring.flyway.schemas=" + db.schema(),
                "spring.main.banner-mode=off",
                "outbox.schema=" + db.schema()));
        properties.addAll(List.of(extra));
        return new SpringApplicationBuilder(app)
                .web(web)
                .properties(properties.toArray(String[]::new))
                .run();
    }

    /** Boot's own {@code spring.rabbitmq.*} keys for the test broker, then {@code extra}: the worker and the relay read them. */
    static String[] withBroker(RabbitExtension rabbit, String... extra) {
        AmqpAddress broker = AmqpAddress.parse(rabbit.uri(), "test broker");
        List<String> properties = new ArrayList<>(List.of(
                "spring.rabbitmq.host=" + broker.host(),
                "spring.rabbitmq.port=" + broker.port(),
                "spring.rabbitmq.username=" + broker.username(),
                "spring.rabbitmq.password=" + broker.password(),
                "spring.rabbitmq.virtual-host=" + broker.virtualHost()));
        properties.addAll(List.of(extra));
        return properties.toArray(String[]::new);
    }

    /** The rows of {@code table} in the test class's schema that match {@code condition}, read outside the application. */
    static int count(PostgresSchemaExtension db, String table, String condition) {
        return DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                .fetchCount(DSL.table(DSL.name(db.schema(), table)), DSL.condition(condition));
    }
}
