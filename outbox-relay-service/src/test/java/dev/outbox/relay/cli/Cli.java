package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.TestPostgres;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;

/** The relay jar's commands run in-process against a test's schema, as an operator runs them. */
final class Cli {

    private Cli() {}

    /**
     * Runs {@code args} with the test database and {@code db}'s schema (plus {@code extraEnv}),
     * asserts exit 0 (the error output as the reason otherwise) and returns the standard output.
     */
    static String succeed(PostgresSchemaExtension db, Map<String, String> extraEnv, String... args) {
        TestPostgres pg = TestPostgres.get();
        Map<String, String> env = new HashMap<>(Map.of(
                "OUTBOX_JDBC_URL",
                pg.jdbcUrl(),
                "OUTBOX_JDBC_USER",
                pg.user(),
                "OUTBOX_JDBC_PASSWORD",
                pg.password(),
                "OUTBOX_SCHEMA",
                db.schema()));
        env.putAll(extraEnv);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = RelayCommand.run(args, env, new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(code).as(err.toString()).isZero();
        return out.toString();
    }
}
