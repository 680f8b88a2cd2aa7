package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.api.NewEvent;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.Events.InvoiceSent;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.Tables;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TestPostgres;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The service's command line, run in this JVM: exit codes, one-line errors, status output, migrate. */
class RelayCommandIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    @RegisterExtension
    static final PostgresSchemaExtension fresh = PostgresSchemaExtension.empty();

    @RegisterExtension
    static final PostgresSchemaExtension bare = PostgresSchemaExtension.empty();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @TempDir
    static Path dir;

    static Path routesFile;
    static String queue;

    Tables tables;

    /** What a run printed and returned. */
    record Run(int exitCode, String out, String err) {}

    @BeforeAll
    static void routesFile() throws Exception {
        queue = rabbit.queue("refunds");
        routesFile = dir.resolve("routes.yaml");
        Files.writeString(routesFile, """
                routes:
                  order.cancelled:
                    - job: refund
                      queue: %s
                      retryDelaysSeconds: [5, 30]
                      deliveryTimeoutSeconds: 300
                """.formatted(queue));
    }

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
        tables = new Tables(db);
    }

    static Map<String, String> env(PostgresSchemaExtension schema) {
        return env(schema, rabbit, routesFile);
    }

    /** The service's settings for a test schema, a broker and a routes file. */
    static Map<String, String> env(PostgresSchemaExtension schema, RabbitExtension rabbit, Path routesFile) {
        TestPostgres pg = TestPostgres.get();
        Map<String, String> env = new HashMap<>();
        env.put("OUTBOX_JDBC_URL", pg.jdbcUrl());
        env.put("OUTBOX_JDBC_USER", pg.user());
        env.put("OUTBOX_JDBC_PASSWORD", pg.password());
        env.put("OUTBOX_SCHEMA", schema.schema());
        env.put("OUTBOX_AMQP_URI", rabbit.uri());
        env.put("OUTBOX_ROUTES_FILE", routesFile.toString());
        return env;
    }

    static Run run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = RelayCommand.run(args, env, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void printsTheVersionOfTheBuild() {
        String built = System.getProperty("outbox.buildVersion");
        assertThat(built)
                .as("the build's project.version, passed by surefire")
                .isNotBlank()
                .doesNotContain("${");

        Run run = run(Map.of(), "--version");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).isEqualTo("outbox-relay " + built + System.lineSeparator());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "3601", "-1", "abc", "1.5", ""})
    void refusesASleepThatIsNotAWholeNumberFromOneTo3600(String sleep) {
        Run run = run(env(db), "relay", "--loop", "--sleep=" + sleep);

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .startsWith("outbox-relay: ")
                .contains("--sleep")
                .contains("(see --help)")
                .hasLineCount(1);
    }

    @Test
    void refusesAMissingJdbcUrlWithOneLine() {
        Map<String, String> env = env(db);
        env.remove("OUTBOX_JDBC_URL");

        Run run = run(env, "status");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .startsWith("outbox-relay: OUTBOX_JDBC_URL: is required")
                .hasLineCount(1);
    }

    @Test
    void refusesARelayWithoutBrokerOrRoutesButStatusNeedsNeither() {
        Map<String, String> env = env(db);
        env.remove("OUTBOX_AMQP_URI");
        env.remove("OUTBOX_ROUTES_FILE");

        Run relay = run(env, "relay");
        Run status = run(env, "status");

        assertThat(relay.exitCode()).isEqualTo(2);
        assertThat(relay.err())
                .startsWith("outbox-relay: OUTBOX_AMQP_URI: is required")
                .hasLineCount(1);
        assertThat(status.exitCode()).isZero();
    }

    @Test
    void namesTheBadSettingWithoutEchoingSecrets() {
        Map<String, String> env = env(db);
        env.put("OUTBOX_AMQP_URI", "http://user:s3cret@host");
        env.put("OUTBOX_QUEUE_TYPE", "stream");

        Run badUri = run(env, "relay");
        env.put("OUTBOX_AMQP_URI", rabbit.uri());
        Run badQueueType = run(env, "relay");
        env.put("OUTBOX_QUEUE_TYPE", "quorum");
        env.put("OUTBOX_ROUTES_FILE", dir.resolve("missing.yaml").toString());
        Run missingRoutes = run(env, "relay");

        assertThat(badUri.exitCode()).isEqualTo(2);
        assertThat(badUri.err())
                .startsWith("outbox-relay: OUTBOX_AMQP_URI: ")
                .doesNotContain("s3cret")
                .hasLineCount(1);
        assertThat(badQueueType.exitCode()).isEqualTo(2);
        assertThat(badQueueType.err())
                .startsWith("outbox-relay: OUTBOX_QUEUE_TYPE: must be classic or quorum")
                .hasLineCount(1);
        assertThat(missingRoutes.exitCode()).isEqualTo(2);
        assertThat(missingRoutes.err())
                .startsWith("outbox-relay: OUTBOX_ROUTES_FILE: ")
                .contains("no such routes file")
                .hasLineCount(1);
    }

    @Test
    void triesAnUnderscoreHostLiterallyAndNeverTheLocalBroker() throws Exception {
        String elsewhere = rabbit.queue("elsewhere");
        Path routes = dir.resolve("elsewhere.yaml");
        Files.writeString(
                routes,
                "routes: {order.cancelled: [{job: refund, queue: %s, retryDelaysSeconds: [5], deliveryTimeoutSeconds: 60}]}"
                        .formatted(elsewhere));
        tables.record(new OrderCancelled(1));
        Map<String, String> env = env(db, rabbit, routes);
        int port =
                dev.outbox.delivery.amqp.AmqpAddress.parse(rabbit.uri(), "test").port();
        env.put("OUTBOX_AMQP_URI", "amqp://guest:guest@no_such_host.invalid:" + port + "/%2F");

        Run run = run(env, "relay");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).startsWith("outbox-relay: broker unreachable (").hasLineCount(1);
        assertThat(queueExists(elsewhere))
                .as("the relay declared its queue on the local broker")
                .isFalse();
        assertThat(tables.deliveries()).extracting(d -> d.getStatus()).containsOnly(OutboxDeliveryStatus.pending);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "amqp://relay:s3cret@bad_rabbit:abc/%2F",
                "amqp://relay:s3cret@/%2F",
                "amqps://relay:s3cret@bad rabbit/%2F",
                "amqp://relay:s3cret@bad_rabbit:5672/a/b",
                "rabbit:5672"
            })
    void refusesAnAmqpUriItCannotReadWithOneLineAndExitTwo(String uri) {
        refused("OUTBOX_AMQP_URI", uri, "relay");
    }

    /** Runs {@code command} with one setting changed: exit 2 and one line that names it and holds no secret. */
    static Run refused(String key, String value, String command) {
        Map<String, String> env = env(db);
        env.put(key, value);

        Run run = run(env, command);

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .startsWith("outbox-relay: " + key + ": ")
                .doesNotContain("s3cret")
                .hasLineCount(1);
        return run;
    }

    static boolean queueExists(String queue) throws Exception {
        try (com.rabbitmq.client.Connection c = rabbit.connectionFactory().newConnection("test-probe");
                com.rabbitmq.client.Channel ch = c.createChannel()) {
            ch.queueDeclarePassive(queue);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    @Test
    void readsAPropertiesFileAndTheEnvironmentWinsOverIt() throws Exception {
        Path config = dir.resolve("relay.properties");
        Files.writeString(
                config, "OUTBOX_JDBC_URL=jdbc:postgresql://127.0.0.1:1/nowhere\nOUTBOX_SCHEMA=" + db.schema() + "\n");
        Map<String, String> env = env(db);
        env.remove("OUTBOX_SCHEMA");

        Run run = run(env, "--config", config.toString(), "status");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("unrouted events: 0");
    }

    @Test
    void refusesAnUnknownSettingInThePropertiesFile() throws Exception {
        Path config = dir.resolve("typo.properties");
        Files.writeString(config, "OUTBOX_JDBC_ULR=jdbc:postgresql://db/app\n");

        Run run = run(env(db), "--config", config.toString(), "status");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .startsWith("outbox-relay: OUTBOX_JDBC_ULR: unknown setting")
                .hasLineCount(1);
    }

    @Test
    void refusesAnUnknownOptionOrCommandWithOneLine() {
        Run option = run(env(db), "relay", "--lopo");
        Run command = run(env(db), "relya");
        Run none = run(env(db));

        assertThat(option.exitCode()).isEqualTo(2);
        assertThat(option.err())
                .startsWith("outbox-relay: ")
                .contains("--lopo")
                .contains("(see --help)")
                .hasLineCount(1);
        assertThat(command.exitCode()).isEqualTo(2);
        assertThat(command.err()).startsWith("outbox-relay: ").contains("relya").hasLineCount(1);
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err()).startsWith("outbox-relay: a command is required").hasLineCount(1);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "jdbc:postgresql://127.0.0.1:5432?password=s3cret",
                "jdbc:postgresql://127.0.0.1:99999/test?password=s3cret",
                "jdbc:postgresql://127.0.0.1:port/test?password=s3cret",
                "jdbc:postgresql://127.0.0.1/test?password=s3cret&x=%zz",
                "jdbc:postgresql://127.0.0.1:5432/?password=s3cret",
                "jdbc:postgresql:///test?password=s3cret"
            })
    void refusesAJdbcUrlTheDriverCannotReadWithoutShowingIt(String url) {
        assertThat(refused("OUTBOX_JDBC_URL", url, "status").err()).doesNotContain("127.0.0.1");
    }

    @Test
    void namesTheLineOfABadConfigFileLineWithoutShowingIt() throws Exception {
        Path secretOnly = dir.resolve("secret-only.properties");
        Files.writeString(secretOnly, "# relay\nOUTBOX_SCHEMA=" + db.schema() + "\nhunter2s3cret\n");
        Path spaceSeparated = dir.resolve("space.properties");
        Files.writeString(spaceSeparated, "OUTBOX_JDBC_PASSWORD s3cret\n");
        Path lowerCase = dir.resolve("lower.properties");
        Files.writeString(lowerCase, "\n\ns3cret=x\n");

        for (Path file : List.of(secretOnly, spaceSeparated, lowerCase)) {
            Run run = run(env(db), "--config", file.toString(), "status");

            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err())
                    .startsWith("outbox-relay: --config: " + file + " line ")
                    .contains(": not a setting")
                    .doesNotContain("s3cret")
                    .hasLineCount(1);
        }
        assertThat(run(env(db), "--config", secretOnly.toString(), "status").err())
                .contains(" line 3: ");
    }

    @Test
    void refusesASettingGivenTwiceInTheConfigFileAndNamesTheNearestKnownKey() throws Exception {
        Path twice = dir.resolve("twice.properties");
        Files.writeString(twice, "OUTBOX_SCHEMA=a\nOUTBOX_SCHEMA=b\n");
        Path typo = dir.resolve("typo2.properties");
        Files.writeString(typo, "OUTBOX_POLL_ONYL=true\n");

        Run runTwice = run(env(db), "--config", twice.toString(), "status");
        Run runTypo = run(env(db), "--config", typo.toString(), "status");

        assertThat(runTwice.exitCode()).isEqualTo(2);
        assertThat(runTwice.err())
                .startsWith("outbox-relay: OUTBOX_SCHEMA: is given twice in " + twice + " (again on line 2)")
                .hasLineCount(1);
        assertThat(runTypo.exitCode()).isEqualTo(2);
        assertThat(runTypo.err())
                .startsWith("outbox-relay: OUTBOX_POLL_ONYL: unknown setting in " + typo + " line 1")
                .contains("the nearest known one is OUTBOX_POLL_ONLY")
                .hasLineCount(1);
    }

    @Test
    void refusesAnUnknownOutboxVariableNamingTheNearestKnownOne() {
        Run run = refused("OUTBOX_SCHEMAA", "billing", "status");

        assertThat(run.err())
                .isEqualTo("outbox-relay: OUTBOX_SCHEMAA: unknown setting in the environment; the nearest known one is"
                        + " OUTBOX_SCHEMA (docs/reference.md lists them)\n");
    }

    @Test
    void ignoresTheVariablesOfTheProjectsTestsAndCodegenAndKubernetesServiceLinks() {
        Map<String, String> env = env(db);
        env.put("OUTBOX_TEST_JDBC_URL", "jdbc:postgresql://elsewhere/test");
        env.put("OUTBOX_CODEGEN_JDBC_PASSWORD", "x");
        env.put("OUTBOX_SERVICE_HOST", "10.0.0.1");
        env.put("OUTBOX_SERVICE_PORT", "5672");
        env.put("OUTBOX_PORT", "tcp://10.0.0.1:5672");
        env.put("OUTBOX_PORT_5672_TCP_ADDR", "10.0.0.1");
        env.put("OUTBOX_RELAY_SERVICE_HOST", "10.0.0.2");
        env.put("OUTBOX_RELAY_SERVICE_PORT", "8080");
        env.put("OUTBOX_RELAY_SERVICE_PORT_HTTP", "8080");
        Map<String, String> withoutTheService = env(db);
        withoutTheService.put("OUTBOX_PORT", "5432"); // no OUTBOX_SERVICE_HOST: not a service link, a typo

        Run run = run(env, "status");
        Run typo = run(withoutTheService, "status");

        assertThat(run.exitCode()).isZero();
        assertThat(typo.exitCode()).isEqualTo(2);
        assertThat(typo.err())
                .startsWith("outbox-relay: OUTBOX_PORT: unknown setting in the environment")
                .hasLineCount(1);
    }

    @Test
    void takesTheWakeupLingerInMillisecondsAndDefaultsToTheRelays() {
        Map<String, String> env = env(db);
        env.put("OUTBOX_WAKEUP_LINGER_MILLIS", "250");

        Run run = run(env, "status");

        assertThat(run.exitCode()).isZero();
        assertThat(ServiceSettings.load(env, null).wakeupLinger()).isEqualTo(Duration.ofMillis(250));
        assertThat(ServiceSettings.load(Map.of("OUTBOX_WAKEUP_LINGER_MILLIS", "0"), null)
                        .wakeupLinger())
                .isZero();
        assertThat(ServiceSettings.load(env(db), null).wakeupLinger())
                .isEqualTo(Duration.ofMillis(OutboxRelay.DEFAULT_WAKEUP_LINGER_MILLIS));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "1001", "5ms", "0.5"})
    void refusesAWakeupLingerThatIsNotAWholeNumberOfMillisecondsFromZeroToOneThousand(String linger) {
        Map<String, String> env = env(db);
        env.put("OUTBOX_WAKEUP_LINGER_MILLIS", linger);

        Run run = run(env, "relay");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err())
                .isEqualTo("outbox-relay: OUTBOX_WAKEUP_LINGER_MILLIS: must be a whole number from 0 to 1000, got '"
                        + linger + "'\n");
    }

    @Test
    void boundsEverySettingAndWhatAMessageRepeatsOfIt() {
        Map<String, String> tooLong = env(db);
        tooLong.put("OUTBOX_ROUTES_FILE", "r".repeat(5000));
        Map<String, String> hostile = env(db);
        hostile.put("OUTBOX_QUEUE_TYPE", "quorum\u001b[31m" + "x".repeat(1000));

        Run runTooLong = run(tooLong, "relay");
        Run runHostile = run(hostile, "relay");

        assertThat(runTooLong.exitCode()).isEqualTo(2);
        assertThat(runTooLong.err()).isEqualTo("outbox-relay: OUTBOX_ROUTES_FILE: is longer than 4096 characters\n");
        assertThat(runHostile.exitCode()).isEqualTo(2);
        assertThat(runHostile.err())
                .startsWith("outbox-relay: OUTBOX_QUEUE_TYPE: must be classic or quorum, got 'quorum?[31mxxx")
                .doesNotContain("\u001b")
                .hasLineCount(1);
        assertThat(runHostile.err().length()).isLessThan(120);
    }

    @Test
    void statusAndRelayOnASchemaWithoutTheTablesSayWhichAreMissingAndThatMigrateCreatesThem() {
        Map<String, String> noSchema = env(bare);
        noSchema.put(
                "OUTBOX_SCHEMA",
                "no_such_schema_" + UUID.randomUUID().toString().substring(0, 8));

        Run statusOnEmpty = run(env(bare), "status");
        Run relayOnEmpty = run(env(bare), "relay");
        Run statusOnMissingSchema = run(noSchema, "status");

        assertThat(statusOnEmpty.exitCode()).isEqualTo(1);
        assertThat(statusOnEmpty.err())
                .isEqualTo("outbox-relay: the outbox tables are missing: schema " + bare.schema()
                        + " has no table outbox_events and outbox_deliveries; the migrations create them (outbox-relay migrate, or"
                        + " OutboxMigrations.migrate), or the table names are wrong\n");
        assertThat(relayOnEmpty.exitCode()).isEqualTo(1);
        assertThat(relayOnEmpty.err()).isEqualTo(statusOnEmpty.err());
        assertThat(statusOnMissingSchema.exitCode()).isEqualTo(1);
        assertThat(statusOnMissingSchema.err())
                .startsWith("outbox-relay: the outbox tables are missing: schema no_such_schema_")
                .contains("does not exist")
                .contains("outbox-relay migrate")
                .hasLineCount(1);
    }

    @Test
    void exitsOneWithOneLineWhenTheDatabaseCannotBeReached() {
        Map<String, String> env = env(db);
        env.put("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/nowhere");

        Run run = run(env, "status");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err())
                .startsWith("outbox-relay: database unreachable (")
                .contains("SQL state 08001")
                .hasLineCount(1);
    }

    @Test
    void statusPrintsZerosForEmptyTables() {
        Run run = run(env(db), "status");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out())
                .containsPattern("total\\s+0\\s+0\\s+0s\\s+0\\s+0\\s+0")
                .contains("unrouted events: 0")
                .containsPattern("failure reason\\s+failed");
    }

    @Test
    void relayRunsOnePassThenStatusCountsWhatItDidWithoutPayloadsOrIds() {
        List<UUID> events = tables.recordAll(List.of(
                NewEvent.of(new OrderCancelled(1)),
                NewEvent.of(new OrderCancelled(2)),
                NewEvent.of(new OrderCancelled(3))));
        UUID unroutable = tables.record(new InvoiceSent(77_777_777)).get(0);
        tables.dsl()
                .update(dev.outbox.schema.Tables.OUTBOX_EVENTS) // none of this may ever reach the output
                .set(
                        dev.outbox.schema.Tables.OUTBOX_EVENTS.PAYLOAD,
                        org.jooq.JSONB.valueOf("{\"email\": \"jane@example.com\"}"))
                .where(dev.outbox.schema.Tables.OUTBOX_EVENTS.ID.eq(unroutable))
                .execute();

        Run relay = run(env(db), "relay");
        Run status = run(env(db), "status");

        assertThat(relay.exitCode()).isZero();
        assertThat(tables.deliveries())
                .extracting(d -> d.getStatus())
                .containsOnly(OutboxDeliveryStatus.dispatched)
                .hasSize(3);
        assertThat(status.exitCode()).isZero();
        assertThat(status.out())
                .containsPattern(java.util.regex.Pattern.quote(queue) + "\\s+0\\s+0\\s+0s\\s+3\\s+3\\s+0\\s+0")
                .contains("unrouted events: 1")
                .doesNotContain("jane@example.com")
                .doesNotContain(unroutable.toString())
                .doesNotContain(events.get(0).toString());
    }

    @Test
    void statusCountsFailuresByReasonAndTheOldestReadyDelivery() {
        tables.recordAll(List.of(new OrderCancelled(1), new OrderCancelled(2)));
        run(env(db), "relay");
        var d = dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
        UUID first = tables.deliveries().get(0).getId();
        tables.dsl()
                .update(d)
                .set(d.STATUS, OutboxDeliveryStatus.failed)
                .set(d.FAILURE_REASON, "timeout")
                .set(d.FAILED_AT, java.time.OffsetDateTime.now())
                .setNull(d.DELIVERY_TIMEOUT_AT)
                .where(d.ID.eq(first))
                .execute();
        tables.dsl()
                .update(d)
                .set(d.STATUS, OutboxDeliveryStatus.pending)
                .setNull(d.DISPATCHED_AT)
                .setNull(d.DELIVERY_TIMEOUT_AT)
                .set(d.AVAILABLE_AT, java.time.OffsetDateTime.now().minusSeconds(90))
                .where(d.ID.ne(first))
                .execute();

        Run status = run(env(db), "status");

        assertThat(status.exitCode()).isZero();
        assertThat(status.out())
                .containsPattern(java.util.regex.Pattern.quote(queue) + "\\s+1\\s+1\\s+9\\ds\\s+0\\s+0\\s+0\\s+1")
                .containsPattern("timeout\\s+1");
    }

    @Test
    void migrateAppliesTheOutboxMigrationsToAnEmptySchema() {
        Run migrate = run(env(fresh), "migrate");
        Run again = run(env(fresh), "migrate");
        Run status = run(env(fresh), "status");

        assertThat(migrate.exitCode()).isZero();
        assertThat(migrate.out()).contains("applied 5 migration(s) to schema " + fresh.schema());
        assertThat(again.out()).contains("applied 0 migration(s)");
        assertThat(status.exitCode()).isZero();
        assertThat(OutboxTables.defaults().withSchema(fresh.schema()).schema()).isEqualTo(fresh.schema());
    }
}
