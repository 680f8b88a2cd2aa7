package dev.outbox.relay.cli;

import static dev.outbox.schema.Tables.OUTBOX_DELIVERIES;
import static dev.outbox.schema.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.admin.Retention;
import dev.outbox.api.DuplicateEventException;
import dev.outbox.api.NewEvent;
import dev.outbox.api.Outbox;
import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxRoles;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.Events.OrderCancelled;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.PassResult;
import dev.outbox.relay.RelayException;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.schema.enums.OutboxDeliveryStatus;
import dev.outbox.schema.mapping.OutboxRenderMapping;
import dev.outbox.schema.tables.records.OutboxDeliveriesRecord;
import dev.outbox.testing.PostgresSchemaExtension;
import dev.outbox.testing.RabbitExtension;
import dev.outbox.testing.TestPostgres;
import dev.outbox.worker.OutboxWorker;
import dev.outbox.worker.RetryableOutboxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Issue 42, item 1: each component run as its own role (db/outbox-roles, docs/roles.md), logged
 * in with a JDBC URL that names the role. The tables are migrated by an owner role that is no
 * superuser; the roles are unique to this run and dropped afterwards (roles are cluster-wide).
 */
class RolesIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.empty();

    @RegisterExtension
    static final RabbitExtension rabbit = new RabbitExtension();

    @TempDir
    static Path dir;

    static final String SUFFIX = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    static final String OWNER = "owner_" + SUFFIX;
    static final OutboxRoles ROLES =
            new OutboxRoles("app_" + SUFFIX, "relay_" + SUFFIX, "worker_" + SUFFIX, "operator_" + SUFFIX);
    /** The login roles, each a member of its component's group. */
    static final String APP = ROLES.application() + "_login";

    static final String RELAY = ROLES.relay() + "_login";
    static final String WORKER = ROLES.worker() + "_login";
    static final String OPERATOR = ROLES.operator() + "_login";
    static final String CHANNEL = "roles_" + SUFFIX;

    static OutboxTables tables;
    static String queue;
    static Routes routes;
    static final List<HikariDataSource> pools = new ArrayList<>();

    @BeforeAll
    static void rolesAndTables() throws Exception {
        tables = db.tables();
        sql("CREATE ROLE " + OWNER + " LOGIN CREATEROLE", "ALTER SCHEMA " + tables.schema() + " OWNER TO " + OWNER);
        HikariDataSource owner = pool(OWNER);
        OutboxMigrations.migrate(owner, tables);
        OutboxMigrations.migrateInbox(owner, tables);
        OutboxMigrations.migrateRoles(owner, tables, ROLES);
        sql(
                "CREATE ROLE " + APP + " LOGIN IN ROLE " + ROLES.application(),
                "CREATE ROLE " + RELAY + " LOGIN IN ROLE " + ROLES.relay(),
                "CREATE ROLE " + WORKER + " LOGIN IN ROLE " + ROLES.worker(),
                "CREATE ROLE " + OPERATOR + " LOGIN IN ROLE " + ROLES.operator());
        queue = rabbit.queue("roles");
        routes = Routes.builder()
                .route(
                        "order.cancelled",
                        Route.job("refund", queue, List.of(Duration.ofSeconds(60)), Duration.ofSeconds(300)))
                .route(
                        "order.shipped",
                        Route.job("ship", queue, List.of(), Duration.ofSeconds(300))
                                .ordered())
                .build();
    }

    @AfterAll
    static void dropRoles() throws Exception {
        pools.forEach(HikariDataSource::close);
        List<String> drops = new ArrayList<>();
        for (String role : List.of(
                APP,
                RELAY,
                WORKER,
                OPERATOR,
                ROLES.application(),
                ROLES.relay(),
                ROLES.worker(),
                ROLES.operator(),
                OWNER)) {
            drops.add("DROP OWNED BY " + role + " CASCADE");
            drops.add("DROP ROLE " + role);
        }
        sql(drops.toArray(String[]::new));
    }

    @BeforeEach
    void clean() throws Exception {
        sql("TRUNCATE " + tables.schema() + "." + tables.deliveries() + ", " + tables.schema() + "." + tables.events()
                + ", " + tables.schema() + "." + tables.keys());
        try (var c = rabbit.connectionFactory().newConnection();
                var ch = c.createChannel()) {
            ch.queueDeclare(queue, true, false, false, null);
            ch.queuePurge(queue);
        }
    }

    // --- each works as its role

    @Test
    void theApplicationRecordsChecksDuplicatesTakesKeyPositionsAndWakesTheRelays() throws Exception {
        Outbox outbox = Outbox.builder().tables(tables).notifyChannel(CHANNEL).build();
        DSLContext app = dsl(APP);
        try (Connection listener = connect(RELAY)) {
            listener.createStatement().execute("LISTEN " + CHANNEL);
            UUID own = UUID.randomUUID();
            app.transaction(tx ->
                    outbox.record(tx.dsl(), NewEvent.of(new OrderCancelled(1)).withId(own)));
            app.transaction(tx -> outbox.recordAll(
                    tx.dsl(),
                    List.of(
                            NewEvent.of(new OrderCancelled(2)).withOrderingKey("order-2"),
                            NewEvent.of(new OrderCancelled(3)).withOrderingKey("order-2"))));
            boolean again = app.transactionResult(tx -> outbox.recordIfAbsent(
                    tx.dsl(), NewEvent.of(new OrderCancelled(1)).withId(own)));
            assertThatThrownBy(() -> app.transaction(tx -> outbox.recordAll(
                            tx.dsl(),
                            List.of(
                                    NewEvent.of(new OrderCancelled(4)),
                                    NewEvent.of(new OrderCancelled(1)).withId(own)))))
                    .isInstanceOf(DuplicateEventException.class);

            assertThat(again).isFalse();
            assertThat(superuser().fetchCount(OUTBOX_EVENTS))
                    .as("the recordAll with a recorded id wrote none")
                    .isEqualTo(3);
            assertThat(superuser()
                            .select(OUTBOX_EVENTS.ORDERING_POSITION)
                            .from(OUTBOX_EVENTS)
                            .where(OUTBOX_EVENTS.ORDERING_KEY.eq("order-2"))
                            .orderBy(OUTBOX_EVENTS.ORDERING_POSITION)
                            .fetch(OUTBOX_EVENTS.ORDERING_POSITION))
                    .containsExactly(1L, 2L);
            PGNotification[] woken = listener.unwrap(PGConnection.class).getNotifications(10_000);
            assertThat(woken).isNotEmpty();
            assertThat(woken[0].getName()).isEqualTo(CHANNEL);
        }
    }

    @Test
    void theRelayRoutesDispatchesToRabbitMqAndSweeps() throws Exception {
        record(new OrderCancelled(1));
        record(NewEvent.of(new OrderCancelled(2)).withEventType("order.shipped").withOrderingKey("order-2"));

        PassResult first = relay().runOnce();

        assertThat(first.routedEvents()).isEqualTo(2);
        assertThat(first.dispatched()).isEqualTo(2);
        assertThat(first.confirmed()).isEqualTo(2);
        try (var c = rabbit.connectionFactory().newConnection();
                var ch = c.createChannel()) {
            assertThat(ch.messageCount(queue)).as("published to RabbitMQ").isEqualTo(2);
        }

        OffsetDateTime past = OffsetDateTime.now(ZoneOffset.UTC).minusHours(1);
        superuser()
                .update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.DISPATCHED_AT, past.minusMinutes(10))
                .set(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT, past)
                .set(OUTBOX_DELIVERIES.STARTED_AT, past.minusMinutes(5))
                .where(OUTBOX_DELIVERIES.JOB_TYPE.eq("refund"))
                .execute();
        PassResult sweep = relay().runOnce();

        assertThat(sweep.timedOut()).isEqualTo(1);
        assertThat(delivery("refund").getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
    }

    @Test
    void theWorkerCompletesRetriesAndFails() throws Exception {
        record(new OrderCancelled(1));
        record(new OrderCancelled(2));
        record(new OrderCancelled(3));
        relay().runOnce();

        try (OutboxWorker worker = OutboxWorker.builder()
                .dataSource(pool(WORKER))
                .connectionFactory(rabbit.connectionFactory())
                .tables(tables)
                .queue(queue, 1, 10)
                .handler("refund", OrderCancelled.class, (event, context) -> {
                    if (event.orderId() == 2) {
                        throw new RetryableOutboxException("try again");
                    }
                    if (event.orderId() == 3) {
                        throw new IllegalStateException("cannot refund");
                    }
                })
                .build()) {
            worker.start();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> superuser()
                                    .fetchCount(
                                            OUTBOX_DELIVERIES,
                                            OUTBOX_DELIVERIES.STATUS.ne(OutboxDeliveryStatus.dispatched))
                            == 3);
        }

        assertThat(deliveryOf(1).getStatus()).isEqualTo(OutboxDeliveryStatus.completed);
        assertThat(deliveryOf(2).getStatus()).as("retried in 60 s").isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(deliveryOf(3).getStatus()).isEqualTo(OutboxDeliveryStatus.failed);
        assertThat(deliveryOf(3).getFailureReason()).isEqualTo("job_failed");
    }

    @Test
    void theOperatorRequeuesRemovesListsBlockedKeysPurgesAndReadsTheStatus() throws Exception {
        record(new OrderCancelled(1));
        record(new OrderCancelled(2));
        record(NewEvent.of(new OrderCancelled(3)).withEventType("order.shipped").withOrderingKey("order-3"));
        relay().runOnce();
        OffsetDateTime past = OffsetDateTime.now(ZoneOffset.UTC).minusDays(30);
        superuser()
                .update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.failed)
                .set(OUTBOX_DELIVERIES.FAILED_AT, past)
                .set(OUTBOX_DELIVERIES.FAILURE_REASON, "job_failed")
                .setNull(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT)
                .execute();
        Map<String, String> env = env(OPERATOR);

        RelayCommandIT.Run status = RelayCommandIT.run(env, "status");
        RelayCommandIT.Run blocked = RelayCommandIT.run(env, "blocked", "list");
        RelayCommandIT.Run requeue = RelayCommandIT.run(
                env, "failed", "requeue", "--id=" + deliveryOf(1).getId());
        RelayCommandIT.Run remove = RelayCommandIT.run(
                env, "failed", "remove", "--id=" + deliveryOf(2).getId());
        RelayCommandIT.Run purge = RelayCommandIT.run(env, "purge", "--failed=7d");

        assertThat(status.exitCode()).as(status.err()).isZero();
        assertThat(status.out()).contains(queue);
        assertThat(blocked.exitCode()).as(blocked.err()).isZero();
        assertThat(blocked.out()).contains("order-3");
        assertThat(requeue.exitCode()).as(requeue.err()).isZero();
        assertThat(deliveryOf(1).getStatus()).isEqualTo(OutboxDeliveryStatus.pending);
        assertThat(remove.exitCode()).as(remove.err()).isZero();
        assertThat(purge.exitCode()).as(purge.err()).isZero();
        assertThat(superuser().fetchCount(OUTBOX_DELIVERIES))
                .as("the requeued one is left")
                .isEqualTo(1);
        assertThat(OutboxAdmin.of(pool(OPERATOR), tables)
                        .purgeExclusively(Retention.of().failed(Duration.ofDays(7))))
                .isPresent();
    }

    // --- each is refused what it must not do

    @Test
    void theWorkerCannotDeleteAndSaysWhoMayNotDoWhat() throws Exception {
        record(new OrderCancelled(1));
        relay().runOnce();
        superuser()
                .update(OUTBOX_DELIVERIES)
                .set(OUTBOX_DELIVERIES.STATUS, OutboxDeliveryStatus.failed)
                .set(OUTBOX_DELIVERIES.FAILED_AT, OffsetDateTime.now(ZoneOffset.UTC))
                .set(OUTBOX_DELIVERIES.FAILURE_REASON, "job_failed")
                .setNull(OUTBOX_DELIVERIES.DELIVERY_TIMEOUT_AT)
                .execute();

        RelayCommandIT.Run remove = RelayCommandIT.run(env(WORKER), "failed", "remove", "--all");

        assertThat(remove.exitCode()).isEqualTo(1);
        assertThat(remove.err())
                .hasLineCount(1)
                .startsWith("outbox-relay: ")
                .contains("SQL state 42501")
                .contains("permission denied: role '" + WORKER + "' may not DELETE from table " + tables.deliveries());
        assertThat(refused(WORKER, "DELETE FROM " + tables.schema() + "." + tables.events()))
                .isEqualTo("42501");
        assertThat(superuser().fetchCount(OUTBOX_DELIVERIES)).isEqualTo(1);
    }

    @Test
    void theApplicationCannotUpdateDeliveriesAndARelayRunAsItSaysSo() throws Exception {
        record(new OrderCancelled(1));
        relay().runOnce();

        assertThat(refused(APP, "UPDATE " + tables.schema() + "." + tables.deliveries() + " SET attempts = 0"))
                .isEqualTo("42501");
        assertThat(refused(APP, "SELECT payload FROM " + tables.schema() + "." + tables.events()))
                .isEqualTo("42501");
        assertThatThrownBy(() -> relay(APP).runOnce())
                .isInstanceOf(RelayException.class)
                .hasMessageContaining("SQLState 42501): permission denied: role '" + APP
                        + "' may not SELECT from table " + tables.events());
        RelayCommandIT.Run requeue = RelayCommandIT.run(env(APP), "failed", "requeue", "--all");
        assertThat(requeue.exitCode()).isEqualTo(1);
        assertThat(requeue.err())
                .hasLineCount(1)
                .contains("permission denied: role '" + APP + "' may not SELECT from table " + tables.deliveries());
    }

    @Test
    void nobodyButTheOwnerAltersTheTables() throws Exception {
        for (String role : List.of(APP, RELAY, WORKER, OPERATOR)) {
            assertThat(refused(role, "ALTER TABLE " + tables.schema() + "." + tables.events() + " ADD COLUMN x int"))
                    .as(role)
                    .isEqualTo("42501");
            assertThat(refused(role, "CREATE TABLE " + tables.schema() + ".x (id int)"))
                    .as(role)
                    .isEqualTo("42501");
            assertThat(refused(role, "DROP TABLE " + tables.schema() + "." + tables.deliveries()))
                    .as(role)
                    .isEqualTo("42501");
        }
        try (Connection owner = connect(OWNER);
                Statement s = owner.createStatement()) {
            s.execute("BEGIN");
            s.execute("ALTER TABLE " + tables.schema() + "." + tables.events() + " ADD COLUMN x int");
            s.execute("ROLLBACK");
        }
        RelayCommandIT.Run migrate = RelayCommandIT.run(env(RELAY), "migrate");
        assertThat(migrate.exitCode()).isEqualTo(1);
        assertThat(migrate.err()).hasLineCount(1).contains("42501").contains("role '" + RELAY + "'");
    }

    @Test
    void aTableChangeByANonOwnerNamesTheRoleAndTheMigrationOwner() throws Exception {
        try (Connection c = connect(RELAY);
                Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + tables.schema() + "." + tables.events() + " ADD COLUMN x int");
            throw new AssertionError("the relay altered a table");
        } catch (SQLException e) {
            assertThat(RelayCommand.describe(e, RELAY))
                    .isEqualTo("PSQLException, SQL state 42501: permission denied: role '" + RELAY
                            + "' does not own table " + tables.events()
                            + "; only the migration owner changes the tables (DDL), see docs/roles.md");
        }
    }

    @Test
    void nothingAtRunTimeNeedsASuperuserOrDdl() throws Exception {
        for (String role : List.of(OWNER, APP, RELAY, WORKER, OPERATOR)) {
            try (Connection c = connect(role);
                    Statement s = c.createStatement();
                    var rs = s.executeQuery(
                            "SELECT rolsuper OR rolcreatedb OR rolbypassrls FROM pg_roles WHERE rolname = current_user")) {
                rs.next();
                assertThat(rs.getBoolean(1)).as(role).isFalse();
            }
        }
        try (Connection c = connect(RELAY);
                Statement s = c.createStatement()) {
            s.execute("LISTEN " + CHANNEL);
            s.execute("SELECT pg_try_advisory_xact_lock(1, 2), pg_try_advisory_lock(3), pg_advisory_unlock(3)");
            s.execute("SELECT set_config('enable_seqscan', 'off', true)");
        }
        try (Connection c = connect(APP);
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_notify('" + CHANNEL + "', '')");
        }
        assertThat(RelayCommandIT.run(env(OPERATOR), "status").exitCode()).isZero();
        assertThat(RelayCommandIT.run(env(RELAY), "status").exitCode())
                .as("the relay reads the status too")
                .isZero();
    }

    // --- helpers

    /** Relay-service settings that log in as {@code role} through the JDBC URL. */
    static Map<String, String> env(String role) throws Exception {
        Path routesFile = dir.resolve("routes.yaml");
        if (!Files.exists(routesFile)) {
            Files.writeString(
                    routesFile,
                    "routes:\n  order.cancelled:\n    - job: refund\n      queue: " + queue
                            + "\n      retryDelaysSeconds: [60]\n      deliveryTimeoutSeconds: 300\n");
        }
        Map<String, String> env = RelayCommandIT.env(db, rabbit, routesFile);
        env.remove("OUTBOX_JDBC_USER");
        env.remove("OUTBOX_JDBC_PASSWORD");
        env.put("OUTBOX_JDBC_URL", url(role));
        return env;
    }

    static String url(String role) {
        String base = TestPostgres.get().jdbcUrl();
        return base + (base.contains("?") ? "&" : "?") + "user=" + role;
    }

    static Connection connect(String role) throws SQLException {
        return DriverManager.getConnection(url(role));
    }

    static HikariDataSource pool(String role) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url(role));
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        config.setPoolName("roles-" + role);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        return pool;
    }

    static DSLContext dsl(String role) {
        return DSL.using(pool(role), SQLDialect.POSTGRES, OutboxRenderMapping.settings(tables));
    }

    static DSLContext superuser() {
        return DSL.using(db.dataSource(), SQLDialect.POSTGRES, OutboxRenderMapping.settings(tables));
    }

    static OutboxRelay relay() {
        return relay(RELAY);
    }

    static OutboxRelay relay(String role) {
        return OutboxRelay.builder()
                .dataSource(pool(role))
                .connectionFactory(rabbit.connectionFactory())
                .tables(tables)
                .routes(routes)
                .build();
    }

    static void record(Object event) {
        Outbox outbox = Outbox.builder().tables(tables).notifyChannel(CHANNEL).build();
        dsl(APP).transaction(tx -> outbox.record(tx.dsl(), event));
    }

    static OutboxDeliveriesRecord delivery(String jobType) {
        return superuser()
                .selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.JOB_TYPE.eq(jobType))
                .fetchSingle();
    }

    static OutboxDeliveriesRecord deliveryOf(long orderId) {
        return superuser()
                .selectFrom(OUTBOX_DELIVERIES)
                .where(OUTBOX_DELIVERIES.EVENT_ID.eq(DSL.select(OUTBOX_EVENTS.ID)
                        .from(OUTBOX_EVENTS)
                        .where(DSL.field("({0} ->> 'orderId')::bigint", Long.class, OUTBOX_EVENTS.PAYLOAD)
                                .eq(orderId))))
                .fetchSingle();
    }

    /** The SQL state with which {@code role} is refused {@code statement}; fails when it is allowed. */
    static String refused(String role, String statement) throws SQLException {
        try (Connection c = connect(role);
                Statement s = c.createStatement()) {
            s.execute(statement);
        } catch (SQLException e) {
            return e.getSQLState();
        }
        throw new AssertionError(role + " was allowed: " + statement);
    }

    static void sql(String... statements) throws SQLException {
        try (Connection c = TestPostgres.get().connect();
                Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }
}
