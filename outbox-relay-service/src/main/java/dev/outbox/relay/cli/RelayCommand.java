package dev.outbox.relay.cli;

import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.admin.Retention;
import dev.outbox.delivery.internal.DatabaseOutages;
import dev.outbox.delivery.internal.TlsRefusal;
import dev.outbox.flyway.OutboxMigrations;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.DatabaseUnavailableException;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.OutboxStatus;
import dev.outbox.relay.PassResult;
import dev.outbox.relay.QueueType;
import dev.outbox.relay.RelayException;
import dev.outbox.relay.RelayLoggers;
import dev.outbox.relay.Routes;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.flywaydb.core.api.output.MigrateResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The relay service: {@code java -jar outbox-relay.jar relay|status|migrate|failed|purge}. Settings come from
 * {@code OUTBOX_*} environment variables and an optional properties file ({@code --config}); the
 * environment wins over the file. Exit codes: 0 done, 1 a fatal database or broker error, 2 a usage
 * or configuration error; every failure is one line on stderr.
 */
@Command(
        name = "outbox-relay",
        mixinStandardHelpOptions = true,
        versionProvider = BuildVersion.class,
        description = "Routes outbox events into deliveries and publishes them to RabbitMQ.",
        subcommands = {
            RelayCommand.RelayRun.class,
            RelayCommand.StatusRun.class,
            RelayCommand.MigrateRun.class,
            AdminCommands.FailedRun.class,
            BlockedCommands.BlockedRun.class,
            AdminCommands.PurgeRun.class,
            CommandLine.HelpCommand.class
        })
public final class RelayCommand implements Callable<Integer> {

    static final int FATAL = 1;
    static final int USAGE = 2;

    @Spec
    CommandSpec spec;

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "A properties file with OUTBOX_* settings; environment variables win over it.")
    @Nullable
    Path config;

    private final Map<String, String> env;

    RelayCommand(Map<String, String> env) {
        this.env = env;
    }

    public static void main(String[] args) {
        configureLogging();
        // a library thread's stack trace would print external messages (and many lines): its classes only
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> System.err.println(
                "outbox-relay: uncaught " + describe(e) + " in thread " + ServiceSettings.shown(thread.getName(), 80)));
        System.exit(run(
                args,
                System.getenv(),
                new PrintWriter(new OutputStreamWriter(System.out, Charset.defaultCharset()), true),
                new PrintWriter(new OutputStreamWriter(System.err, Charset.defaultCharset()), true)));
    }

    /** Runs the command line and returns the exit code. */
    static int run(String[] args, Map<String, String> env, PrintWriter out, PrintWriter err) {
        RelayCommand command = new RelayCommand(env);
        CommandLine cli = new CommandLine(command);
        cli.setOut(out);
        cli.setErr(err);
        cli.setParameterExceptionHandler((e, arguments) -> {
            err.println(
                    "outbox-relay: " + ServiceSettings.shown(String.valueOf(e.getMessage()), 300) + " (see --help)");
            return USAGE;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof ConfigException) {
                err.println("outbox-relay: " + e.getMessage());
                return USAGE;
            }
            if (e instanceof RelayException) {
                TlsRefusal tls = TlsRefusal.of(e);
                if (tls != null && e.getCause() != null && DatabaseOutages.sqlState(e) == null) {
                    // the broker refused over TLS: the relay's line, in the terms of the settings
                    err.println("outbox-relay: broker unreachable ("
                            + e.getCause().getClass().getSimpleName() + ")" + brokerTlsHint(tls));
                } else {
                    err.println("outbox-relay: " + e.getMessage());
                }
                return FATAL;
            }
            err.println("outbox-relay: " + describe(e, command.role()));
            return FATAL;
        });
        return cli.execute(args);
    }

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "a command is required: relay, status, migrate, failed or purge");
    }

    ServiceSettings settings() {
        return ServiceSettings.load(env, config);
    }

    /** The database role the commands log in as, for the message of a refused privilege; null when the settings cannot say. */
    @Nullable
    String role() {
        try {
            return settings().jdbcRole();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** One pass, or passes until SIGTERM/SIGINT with {@code --loop}. */
    @Command(
            name = "relay",
            mixinStandardHelpOptions = true,
            description = "Route, dispatch and publish, time out lost jobs: one pass, or until stopped with --loop.")
    static final class RelayRun implements Callable<Integer> {

        private static final Logger log = LoggerFactory.getLogger(RelayLoggers.SERVICE);

        @ParentCommand
        RelayCommand parent;

        @Spec
        CommandSpec spec;

        @Option(names = "--loop", description = "Run passes until SIGTERM or SIGINT.")
        boolean loop;

        @Option(
                names = "--sleep",
                paramLabel = "N",
                defaultValue = "1",
                description =
                        "Seconds to sleep after a pass that found nothing to do (1..3600, default ${DEFAULT-VALUE}).")
        int sleep;

        @Override
        @SuppressWarnings("try") // the retention loop runs beside the relay and stops on close()
        public Integer call() {
            if (sleep < 1 || sleep > 3600) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--sleep must be a whole number of seconds from 1 to 3600, got " + sleep);
            }
            ServiceSettings s = parent.settings();
            String jdbcUrl = s.jdbcUrl();
            ConnectionFactory amqp = s.amqp();
            Routes routes = s.routes();
            OutboxTables tables = s.tables();
            QueueType queueType = s.queueType();
            String channel = s.notifyChannel();
            boolean pollOnly = s.pollOnly();
            int routeBatchSize = s.routeBatchSize();
            int dispatchBatchSize = s.dispatchBatchSize();
            Duration confirmTimeout = Duration.ofSeconds(s.confirmTimeoutSeconds());
            int maxInFlight = s.maxInFlight();
            int maxQueueDepth = s.maxQueueDepth();
            Duration wakeupLinger = s.wakeupLinger();
            Integer httpPort = s.httpPort();
            InetAddress httpHost = s.httpHost();
            if (loop) {
                s.retention(); // a bad OUTBOX_RETENTION_* setting is refused before anything starts
                s.retentionInterval();
            }
            // a looping relay may start before the database is up: it waits for it as for any outage
            try (HikariDataSource dataSource = dataSource(s, jdbcUrl, false, loop)) {
                try {
                    OutboxRelay.requireTables(dataSource, tables);
                } catch (DatabaseUnavailableException e) {
                    if (!loop) {
                        throw e;
                    }
                    // the loop rides the outage out; a table still missing then ends its first pass with one line
                }
                OutboxRelay.Builder builder = OutboxRelay.builder()
                        .dataSource(dataSource)
                        .connectionFactory(amqp)
                        .listenConnection(() -> listenConnection(jdbcUrl, s.jdbcUser(), s.jdbcPassword()))
                        .routes(routes)
                        .tables(tables)
                        .queueType(queueType)
                        .notifyChannel(channel)
                        .notifications(!pollOnly)
                        .sleep(Duration.ofSeconds(sleep))
                        .routeBatchSize(routeBatchSize)
                        .dispatchBatchSize(dispatchBatchSize)
                        .confirmTimeout(confirmTimeout)
                        .maxInFlight(maxInFlight)
                        .maxQueueDepth(maxQueueDepth)
                        .wakeupLinger(wakeupLinger);
                // closed after the relay (resources close in reverse): it answers until the loop has stopped
                try (HttpEndpoint http = loop && httpPort != null
                                ? HttpEndpoint.open(
                                        httpHost,
                                        httpPort,
                                        liveWindow(sleep, confirmTimeout),
                                        () -> probeDatabase(jdbcUrl, s.jdbcUser(), s.jdbcPassword()),
                                        () -> probeBroker(amqp))
                                : null;
                        OutboxRelay relay = (http == null ? builder : builder.meterRegistry(http.registry())).build()) {
                    if (!loop) {
                        PassResult result = relay.runOnce();
                        log.info(
                                "pass done: {} event(s) routed, {} delivery(ies) dispatched, {} confirmed, {} refused, {} timed out",
                                result.routedEvents(),
                                result.dispatched(),
                                result.confirmed(),
                                result.publishFailed(),
                                result.timedOut());
                        return 0;
                    }
                    Signals.onTermination(relay::stop);
                    Retention retention = s.retention();
                    if (retention == null) {
                        relay.runLoop();
                        return 0;
                    }
                    try (RetentionLoop purging = RetentionLoop.start(s, retention, s.retentionInterval())) {
                        relay.runLoop();
                    }
                    return 0;
                }
            }
        }
    }

    /**
     * How long a looping relay may go without progress before {@code /health/live} says 503: three
     * sleeps and a confirm timeout (a batch may wait that long for its confirms), and never less than
     * 2 min (a connection attempt to a silent host may take 1 min).
     */
    static Duration liveWindow(int sleepSeconds, Duration confirmTimeout) {
        Duration window = Duration.ofSeconds(3L * sleepSeconds).plus(confirmTimeout);
        return window.compareTo(Duration.ofMinutes(2)) < 0 ? Duration.ofMinutes(2) : window;
    }

    /** {@code /health/ready}'s database check: a fresh connection (not the relay's pool), 2 s to connect, {@code isValid}. */
    static void probeDatabase(String jdbcUrl, @Nullable String user, @Nullable String password) throws SQLException {
        Properties props = login(user, password);
        props.setProperty("connectTimeout", "2");
        props.setProperty("loginTimeout", "2");
        props.setProperty("socketTimeout", "5");
        props.setProperty("ApplicationName", "outbox-relay-readiness");
        try (Connection c = DriverManager.getConnection(jdbcUrl, props)) {
            if (!c.isValid(2)) {
                throw new SQLException("the connection is not valid");
            }
        }
    }

    /** {@code /health/ready}'s broker check: a connection of its own, 2 s to connect and to shake hands, closed at once. */
    static void probeBroker(ConnectionFactory amqp) throws Exception {
        ConnectionFactory probe = amqp.clone();
        probe.setConnectionTimeout(2_000);
        probe.setHandshakeTimeout(2_000);
        probe.setAutomaticRecoveryEnabled(false);
        try (com.rabbitmq.client.Connection c = probe.newConnection("outbox-relay-readiness")) {
            if (!c.isOpen()) {
                throw new java.io.IOException("the connection closed at once");
            }
        }
    }

    /** Prints the current state as a table; changes nothing. */
    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description =
                    "Print deliveries per queue and status, the oldest ready delivery, unrouted events, failures by reason"
                            + " and blocked keys.")
    static final class StatusRun implements Callable<Integer> {

        @ParentCommand
        RelayCommand parent;

        @Spec
        CommandSpec spec;

        @Option(names = "--json", description = "One JSON object instead of the tables.")
        boolean json;

        @Override
        public Integer call() {
            ServiceSettings s = parent.settings();
            String jdbcUrl = s.jdbcUrl();
            OutboxTables tables = s.tables();
            try (HikariDataSource dataSource = dataSource(s, jdbcUrl, true)) {
                OutboxStatus status;
                try {
                    status = OutboxStatus.read(dataSource, tables, Clock.systemUTC());
                } catch (org.jooq.exception.DataAccessException e) {
                    throw new RelayException("database error (" + describe(e, s.jdbcRole()) + ")", e);
                }
                if (json) {
                    AdminCommands.json(spec.commandLine().getOut(), status.toMap());
                } else {
                    spec.commandLine().getOut().print(status.toTable());
                }
                spec.commandLine().getOut().flush();
                return 0;
            }
        }
    }

    /** Applies the outbox migrations. */
    @Command(
            name = "migrate",
            mixinStandardHelpOptions = true,
            description = "Apply the outbox migrations (for deployments where the relay owns them).")
    static final class MigrateRun implements Callable<Integer> {

        @ParentCommand
        RelayCommand parent;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            ServiceSettings s = parent.settings();
            String jdbcUrl = s.jdbcUrl();
            OutboxTables tables = s.tables();
            try (HikariDataSource dataSource = dataSource(s, jdbcUrl, false)) {
                MigrateResult result;
                try {
                    result = OutboxMigrations.migrate(dataSource, tables);
                } catch (RuntimeException e) {
                    throw new RelayException("migration failed (" + describe(e, s.jdbcRole()) + ")", e);
                }
                spec.commandLine()
                        .getOut()
                        .println("applied " + result.migrationsExecuted + " migration(s) to schema " + tables.schema());
                spec.commandLine().getOut().flush();
                return 0;
            }
        }
    }

    static HikariDataSource dataSource(ServiceSettings s, String jdbcUrl, boolean readOnly) {
        return dataSource(s, jdbcUrl, readOnly, false);
    }

    /** The pool of the operator commands and of retention: two connections (one holds retention's advisory lock). */
    static HikariDataSource adminDataSource(ServiceSettings s) {
        return pool(s, s.jdbcUrl(), "outbox-admin", 2, false, false);
    }

    /** With {@code lazy}, the pool is created even while the database is down (it connects when asked). */
    static HikariDataSource dataSource(ServiceSettings s, String jdbcUrl, boolean readOnly, boolean lazy) {
        return pool(s, jdbcUrl, readOnly ? "outbox-status" : "outbox-relay", readOnly ? 1 : 4, readOnly, lazy);
    }

    static HikariDataSource pool(
            ServiceSettings s, String jdbcUrl, String name, int size, boolean readOnly, boolean lazy) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        if (s.jdbcUser() != null) {
            config.setUsername(s.jdbcUser());
        }
        if (s.jdbcPassword() != null) {
            config.setPassword(s.jdbcPassword());
        }
        config.setPoolName(name);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setReadOnly(readOnly);
        config.setConnectionTimeout(10_000);
        if (lazy) {
            config.setInitializationFailTimeout(-1);
        }
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new RelayException("database unreachable (" + describe(e) + ")", e);
        }
    }

    static Connection listenConnection(String jdbcUrl, @Nullable String user, @Nullable String password) {
        try {
            return DriverManager.getConnection(jdbcUrl, login(user, password));
        } catch (SQLException e) {
            throw new RelayException(
                    "cannot open the LISTEN connection (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    private static Properties login(@Nullable String user, @Nullable String password) {
        Properties props = new Properties();
        if (user != null) {
            props.setProperty("user", user);
        }
        if (password != null) {
            props.setProperty("password", password);
        }
        return props;
    }

    /**
     * The class of the exception and of its innermost cause, and the SQL state of the first
     * {@link SQLException} among them: external messages may hold secrets or data, never printed.
     */
    static String describe(Throwable e) {
        return describe(e, null);
    }

    /** Like {@link #describe(Throwable)}; a refused privilege (SQL state 42501) names {@code role} and what it may not do. */
    static String describe(Throwable e, @Nullable String role) {
        Throwable t = e;
        String sqlState = null;
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            t = c;
            if (sqlState == null
                    && c instanceof SQLException sql
                    && sql.getSQLState() != null
                    && sql.getSQLState().matches("[0-9A-Z]{5}")) {
                sqlState = sql.getSQLState();
            }
        }
        String classes = t == e
                ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + t.getClass().getSimpleName();
        TlsRefusal tls = TlsRefusal.of(e);
        if (tls != null) {
            return classes + (sqlState == null ? "" : ", SQL state " + sqlState) + tlsHint(tls);
        }
        if (sqlState == null) {
            return classes;
        }
        return classes + ", SQL state " + sqlState
                + (DatabaseOutages.INSUFFICIENT_PRIVILEGE.equals(sqlState)
                        ? DatabaseOutages.hint(e, role)
                        : hint(sqlState));
    }

    /** What a server certificate refused by TLS verification means, in the terms of the settings. */
    static String tlsHint(TlsRefusal tls) {
        return switch (tls) {
            case UNTRUSTED ->
                ": TLS: the server's certificate is not trusted: not signed by the CA of sslrootcert in "
                        + ServiceSettings.JDBC_URL + ", or expired";
            case WRONG_HOST ->
                ": TLS: the server's certificate does not name the host of " + ServiceSettings.JDBC_URL
                        + " (sslmode=verify-full)";
        };
    }

    /** What a broker certificate refused by TLS verification means, in the terms of the settings. */
    static String brokerTlsHint(TlsRefusal tls) {
        return switch (tls) {
            case UNTRUSTED ->
                ": TLS: the broker's certificate is not trusted: not signed by a CA of "
                        + ServiceSettings.AMQP_TRUST_STORE + " (or of the JVM when it is not set), or expired";
            case WRONG_HOST -> ": TLS: the broker's certificate does not name the host of " + ServiceSettings.AMQP_URI;
        };
    }

    /** What the SQL states an operator meets at start-up mean, in the terms of the settings. */
    private static String hint(String sqlState) {
        return switch (sqlState) {
            case "28P01", "28000" -> ": the login was refused, check OUTBOX_JDBC_USER and OUTBOX_JDBC_PASSWORD";
            case "3D000" -> ": the database named in OUTBOX_JDBC_URL does not exist";
            case "42P01" ->
                ": the outbox tables are missing in OUTBOX_SCHEMA (run migrate, or check the table settings)";
            default -> "";
        };
    }

    /** The PostgreSQL driver logs through java.util.logging, with whole URLs (and their passwords): held here, and off. */
    private static final java.util.logging.Logger PGJDBC_LOG = java.util.logging.Logger.getLogger("org.postgresql");

    private static void configureLogging() {
        PGJDBC_LOG.setLevel(java.util.logging.Level.OFF);
        // a refused login or a closed socket is reported by the relay in one line of its own
        defaultProperty("org.slf4j.simpleLogger.log.com.rabbitmq.client.impl.ForgivingExceptionHandler", "error");
        defaultProperty("org.slf4j.simpleLogger.logFile", "System.err");
        defaultProperty("org.slf4j.simpleLogger.showDateTime", "true");
        defaultProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        defaultProperty("org.slf4j.simpleLogger.showShortLogName", "true");
        defaultProperty(
                "org.slf4j.simpleLogger.log.com.zaxxer.hikari", "error"); // outages are logged by the relay, once
        defaultProperty("org.slf4j.simpleLogger.log.org.flywaydb", "warn");
        defaultProperty("org.slf4j.simpleLogger.log.org.jooq", "warn");
        // jOOQ's ASCII-art banner and tip of the day, printed at INFO when jOOQ first starts, even with org.jooq at
        // INFO
        defaultProperty("org.jooq.no-logo", "true");
        defaultProperty("org.jooq.no-tips", "true");
    }

    private static void defaultProperty(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
