package dev.outbox.relay.cli;

import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.api.internal.AmqpAddress;
import dev.outbox.api.internal.NotifyChannels;
import dev.outbox.api.internal.AmqpFactories;
import dev.outbox.api.InvalidRouteException;
import dev.outbox.api.Outbox;
import dev.outbox.api.Routes;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.QueueType;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The settings of the relay service: {@code OUTBOX_*} environment variables over an optional
 * properties file with the same keys (the environment wins). Each getter checks its setting and
 * throws a {@link ConfigException} naming it; secrets are never echoed.
 */
final class ServiceSettings {

    static final String JDBC_URL = "OUTBOX_JDBC_URL";
    static final String JDBC_USER = "OUTBOX_JDBC_USER";
    static final String JDBC_PASSWORD = "OUTBOX_JDBC_PASSWORD";
    static final String AMQP_URI = "OUTBOX_AMQP_URI";
    static final String ROUTES_FILE = "OUTBOX_ROUTES_FILE";
    static final String SCHEMA = "OUTBOX_SCHEMA";
    static final String EVENTS_TABLE = "OUTBOX_EVENTS_TABLE";
    static final String DELIVERIES_TABLE = "OUTBOX_DELIVERIES_TABLE";
    static final String QUEUE_TYPE = "OUTBOX_QUEUE_TYPE";
    static final String NOTIFY_CHANNEL = "OUTBOX_NOTIFY_CHANNEL";
    static final String POLL_ONLY = "OUTBOX_POLL_ONLY";
    static final String ROUTE_BATCH_SIZE = "OUTBOX_ROUTE_BATCH_SIZE";
    static final String DISPATCH_BATCH_SIZE = "OUTBOX_DISPATCH_BATCH_SIZE";
    static final String CONFIRM_TIMEOUT_SECONDS = "OUTBOX_CONFIRM_TIMEOUT_SECONDS";
    static final String MAX_IN_FLIGHT = "OUTBOX_MAX_IN_FLIGHT";

    static final Set<String> KEYS = Set.of(JDBC_URL, JDBC_USER, JDBC_PASSWORD, AMQP_URI, ROUTES_FILE, SCHEMA, EVENTS_TABLE,
            DELIVERIES_TABLE, QUEUE_TYPE, NOTIFY_CHANNEL, POLL_ONLY, ROUTE_BATCH_SIZE, DISPATCH_BATCH_SIZE, CONFIRM_TIMEOUT_SECONDS,
            MAX_IN_FLIGHT);

    private final Map<String, String> values;

    private ServiceSettings(Map<String, String> values) {
        this.values = values;
    }

    /** The settings of {@code file} (when given) overridden by those of {@code env}. */
    static ServiceSettings load(Map<String, String> env, @Nullable Path file) {
        Map<String, String> values = new LinkedHashMap<>();
        if (file != null) {
            Properties props = new Properties();
            try (Reader reader = Files.newBufferedReader(file)) {
                props.load(reader);
            } catch (NoSuchFileException e) {
                throw new ConfigException("--config", "no such file " + file);
            } catch (IOException | IllegalArgumentException e) {
                throw new ConfigException("--config", "cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
            }
            for (String key : props.stringPropertyNames()) {
                if (!KEYS.contains(key)) {
                    throw new ConfigException(key, "unknown setting in " + file + " (known: OUTBOX_JDBC_URL, OUTBOX_AMQP_URI, ...; see the README)");
                }
                values.put(key, props.getProperty(key).trim());
            }
        }
        for (String key : KEYS) {
            String value = env.get(key);
            if (value != null) {
                values.put(key, value.trim());
            }
        }
        return new ServiceSettings(values);
    }

    private @Nullable String get(String key) {
        String value = values.get(key);
        return value == null || value.isEmpty() ? null : value;
    }

    String jdbcUrl() {
        String url = get(JDBC_URL);
        if (url == null) {
            throw new ConfigException(JDBC_URL, "is required (e.g. jdbc:postgresql://db:5432/app)");
        }
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new ConfigException(JDBC_URL, "must be a PostgreSQL JDBC URL starting with jdbc:postgresql:");
        }
        return url;
    }

    @Nullable String jdbcUser() {
        return get(JDBC_USER);
    }

    @Nullable String jdbcPassword() {
        return get(JDBC_PASSWORD);
    }

    ConnectionFactory amqp() {
        String uri = get(AMQP_URI);
        if (uri == null) {
            throw new ConfigException(AMQP_URI, "is required (e.g. amqp://user:password@rabbit:5672/%2F)");
        }
        try {
            return AmqpFactories.of(AmqpAddress.parse(uri, AMQP_URI));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e); // names OUTBOX_AMQP_URI, never repeats the URI
        }
    }

    Routes routes() {
        String file = get(ROUTES_FILE);
        if (file == null) {
            throw new ConfigException(ROUTES_FILE, "is required (a .yaml, .yml or .json routes file)");
        }
        try {
            return Routes.fromFile(Path.of(file));
        } catch (InvalidRouteException | IllegalArgumentException e) {
            throw new ConfigException(ROUTES_FILE, String.valueOf(e.getMessage()));
        }
    }

    OutboxTables tables() {
        OutboxTables tables = OutboxTables.defaults();
        tables = name(tables, SCHEMA, t -> t.withSchema(get(SCHEMA)));
        tables = name(tables, EVENTS_TABLE, t -> t.withEvents(get(EVENTS_TABLE)));
        tables = name(tables, DELIVERIES_TABLE, t -> t.withDeliveries(get(DELIVERIES_TABLE)));
        return tables;
    }

    private OutboxTables name(OutboxTables tables, String key, java.util.function.UnaryOperator<OutboxTables> change) {
        if (get(key) == null) {
            return tables;
        }
        try {
            return change.apply(tables);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key, "must be a lower-case identifier [a-z_][a-z0-9_]* (at most 63 characters for a schema, 40 for a table)"
                    + " and the table names must differ");
        }
    }

    QueueType queueType() {
        String value = get(QUEUE_TYPE);
        if (value == null) {
            return QueueType.CLASSIC;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "classic" -> QueueType.CLASSIC;
            case "quorum" -> QueueType.QUORUM;
            default -> throw new ConfigException(QUEUE_TYPE, "must be classic or quorum, got '" + value + "'");
        };
    }

    String notifyChannel() {
        String value = get(NOTIFY_CHANNEL);
        if (value == null) {
            return Outbox.DEFAULT_NOTIFY_CHANNEL;
        }
        if (!NotifyChannels.isValid(value)) {
            throw new ConfigException(NOTIFY_CHANNEL, "must be " + NotifyChannels.RULE + ", got '" + value + "'");
        }
        return value;
    }

    boolean pollOnly() {
        String value = get(POLL_ONLY);
        if (value == null) {
            return false;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new ConfigException(POLL_ONLY, "must be true or false, got '" + value + "'");
        };
    }

    int routeBatchSize() {
        return integer(ROUTE_BATCH_SIZE, 500, 1, 10_000);
    }

    int dispatchBatchSize() {
        return integer(DISPATCH_BATCH_SIZE, 500, 1, 10_000);
    }

    int confirmTimeoutSeconds() {
        return integer(CONFIRM_TIMEOUT_SECONDS, 30, 1, 3_600);
    }

    int maxInFlight() {
        return integer(MAX_IN_FLIGHT, 2_000, 1, 100_000);
    }

    private int integer(String key, int fallback, int min, int max) {
        String value = get(key);
        if (value == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException(key, "must be a whole number from " + min + " to " + max + ", got '" + value + "'");
    }
}
