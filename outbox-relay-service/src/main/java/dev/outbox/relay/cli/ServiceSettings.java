package dev.outbox.relay.cli;

import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.admin.Retention;
import dev.outbox.api.NotifyChannels;
import dev.outbox.api.Outbox;
import dev.outbox.delivery.amqp.AmqpAddress;
import dev.outbox.delivery.amqp.AmqpFactories;
import dev.outbox.delivery.amqp.TlsStores;
import dev.outbox.flyway.OutboxTables;
import dev.outbox.relay.InvalidRouteException;
import dev.outbox.relay.OutboxRelay;
import dev.outbox.relay.QueueType;
import dev.outbox.relay.Routes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
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
    static final String AMQP_TRUST_STORE = "OUTBOX_AMQP_TRUST_STORE";
    static final String AMQP_TRUST_STORE_PASSWORD = "OUTBOX_AMQP_TRUST_STORE_PASSWORD";
    static final String AMQP_KEY_STORE = "OUTBOX_AMQP_KEY_STORE";
    static final String AMQP_KEY_STORE_PASSWORD = "OUTBOX_AMQP_KEY_STORE_PASSWORD";
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
    static final String MAX_QUEUE_DEPTH = "OUTBOX_MAX_QUEUE_DEPTH";
    static final String WAKEUP_LINGER_MILLIS = "OUTBOX_WAKEUP_LINGER_MILLIS";
    static final String RETENTION_COMPLETED = "OUTBOX_RETENTION_COMPLETED";
    static final String RETENTION_FAILED = "OUTBOX_RETENTION_FAILED";
    static final String RETENTION_UNROUTED = "OUTBOX_RETENTION_UNROUTED";
    static final String RETENTION_INTERVAL = "OUTBOX_RETENTION_INTERVAL";
    static final String RETENTION_BATCH_SIZE = "OUTBOX_RETENTION_BATCH_SIZE";
    static final String HTTP_PORT = "OUTBOX_HTTP_PORT";
    static final String HTTP_HOST = "OUTBOX_HTTP_HOST";
    /** The secret settings: each may also come from a file named by the same key with {@code _FILE} after it. */
    static final List<String> SECRETS =
            List.of(JDBC_PASSWORD, AMQP_URI, AMQP_TRUST_STORE_PASSWORD, AMQP_KEY_STORE_PASSWORD);

    static final String FILE_SUFFIX = "_FILE";
    static final String JDBC_PASSWORD_FILE = JDBC_PASSWORD + FILE_SUFFIX;
    static final String AMQP_URI_FILE = AMQP_URI + FILE_SUFFIX;
    static final String AMQP_TRUST_STORE_PASSWORD_FILE = AMQP_TRUST_STORE_PASSWORD + FILE_SUFFIX;
    static final String AMQP_KEY_STORE_PASSWORD_FILE = AMQP_KEY_STORE_PASSWORD + FILE_SUFFIX;

    static final Set<String> KEYS = Set.of(
            JDBC_URL,
            JDBC_USER,
            JDBC_PASSWORD,
            AMQP_URI,
            ROUTES_FILE,
            SCHEMA,
            EVENTS_TABLE,
            DELIVERIES_TABLE,
            QUEUE_TYPE,
            NOTIFY_CHANNEL,
            POLL_ONLY,
            ROUTE_BATCH_SIZE,
            DISPATCH_BATCH_SIZE,
            CONFIRM_TIMEOUT_SECONDS,
            MAX_IN_FLIGHT,
            MAX_QUEUE_DEPTH,
            WAKEUP_LINGER_MILLIS,
            RETENTION_COMPLETED,
            RETENTION_FAILED,
            RETENTION_UNROUTED,
            RETENTION_INTERVAL,
            RETENTION_BATCH_SIZE,
            HTTP_PORT,
            HTTP_HOST,
            JDBC_PASSWORD_FILE,
            AMQP_URI_FILE,
            AMQP_TRUST_STORE,
            AMQP_TRUST_STORE_PASSWORD,
            AMQP_KEY_STORE,
            AMQP_KEY_STORE_PASSWORD,
            AMQP_TRUST_STORE_PASSWORD_FILE,
            AMQP_KEY_STORE_PASSWORD_FILE);

    /** The longest value of any setting, in characters. */
    static final int MAX_VALUE_LENGTH = 4096;
    /** The largest {@code --config} file, in bytes. */
    static final int MAX_FILE_BYTES = 1 << 20;
    /**
     * {@code OUTBOX_*} variables of the project's own build and tests ({@code OUTBOX_TEST_JDBC_URL},
     * {@code OUTBOX_CODEGEN_JDBC_URL}, ...), which a relay started from a test inherits: never read, never refused.
     */
    static final List<String> FOREIGN_PREFIXES = List.of("OUTBOX_TEST_", "OUTBOX_CODEGEN_");
    /** The variables Kubernetes gives every pod for a Service named {@code outbox} or {@code outbox-...}, after the name. */
    private static final Pattern SERVICE_LINK = Pattern.compile(
            "SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?");

    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9._:-]{1,253}|\\[[0-9A-Fa-f:.]{2,45}]");
    private static final Pattern FILE_KEY = Pattern.compile("OUTBOX_[A-Z0-9_]+");

    private final Map<String, String> values;

    private ServiceSettings(Map<String, String> values) {
        this.values = values;
    }

    /**
     * The settings of {@code file} (when given) overridden by those of {@code env}. An unknown
     * {@code OUTBOX_*} key is refused in both, naming the nearest known key, except in the environment
     * the keys of {@link #FOREIGN_PREFIXES} and Kubernetes' service links.
     */
    static ServiceSettings load(Map<String, String> env, @Nullable Path file) {
        Map<String, String> values = new LinkedHashMap<>();
        if (file != null) {
            values.putAll(readFile(file));
        }
        for (String key : new TreeSet<>(env.keySet())) {
            if (key.startsWith("OUTBOX_") && !KEYS.contains(key) && !isForeign(key, env.keySet())) {
                throw new ConfigException(
                        shown(key, 64),
                        "unknown setting in the environment; the nearest known one is " + nearest(key)
                                + " (docs/reference.md lists them)");
            }
        }
        for (String key : KEYS) {
            String value = env.get(key);
            if (value != null && !isServiceLinkPort(key, value, env.keySet())) {
                values.put(key, value.trim());
            }
        }
        for (String secret : SECRETS) {
            String fileKey = secret + FILE_SUFFIX;
            String path = values.remove(fileKey);
            if (path == null) {
                continue;
            }
            if (values.containsKey(secret)) {
                throw new ConfigException(
                        secret, "is given both as a value and as a file (" + fileKey + "); give one of them");
            }
            values.put(secret, readSecret(fileKey, path));
        }
        values.forEach((key, value) -> {
            if (value.length() > MAX_VALUE_LENGTH) {
                throw new ConfigException(key, "is longer than " + MAX_VALUE_LENGTH + " characters");
            }
        });
        return new ServiceSettings(values);
    }

    /**
     * A secret from a file, as Docker and Kubernetes mount them: the whole file, read once, as UTF-8,
     * without its trailing line breaks. Errors name the setting and the file, never the content.
     */
    static String readSecret(String fileKey, String path) {
        if (path.isEmpty()) {
            throw new ConfigException(fileKey, "is empty; name the file that holds the secret");
        }
        Path file;
        try {
            file = Path.of(path);
        } catch (java.nio.file.InvalidPathException e) {
            throw new ConfigException(fileKey, "is not a file name");
        }
        String text;
        try {
            if (!Files.isRegularFile(file)) {
                throw new ConfigException(
                        fileKey, Files.exists(file) ? file + " is not a regular file" : "no such file " + file);
            }
            if (Files.size(file) > MAX_VALUE_LENGTH) {
                throw new ConfigException(fileKey, file + " is larger than " + MAX_VALUE_LENGTH + " bytes");
            }
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(Files.readAllBytes(file)))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new ConfigException(fileKey, "cannot read " + file + " (not UTF-8 text)");
        } catch (IOException e) {
            throw new ConfigException(
                    fileKey, "cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
        }
        String secret = text.replaceFirst("[\\r\\n]+$", "");
        if (secret.isEmpty()) {
            throw new ConfigException(fileKey, file + " is empty");
        }
        if (secret.indexOf('\n') >= 0 || secret.indexOf('\r') >= 0) {
            throw new ConfigException(fileKey, file + " holds more than one line (the secret is not shown)");
        }
        return secret;
    }

    /**
     * {@code KEY=VALUE} lines, {@code #} or {@code !} comments and blank lines; values are taken as
     * they are (trimmed; no escapes, no continuation lines). A bad line is named by its number, never
     * shown: it may hold a secret.
     */
    private static Map<String, String> readFile(Path file) {
        String text;
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new ConfigException("--config", file + " is larger than " + MAX_FILE_BYTES / 1024 + " KiB");
            }
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(Files.readAllBytes(file)))
                    .toString();
        } catch (NoSuchFileException e) {
            throw new ConfigException("--config", "no such file " + file);
        } catch (CharacterCodingException e) {
            throw new ConfigException("--config", "cannot read " + file + " (not UTF-8 text)");
        } catch (IOException e) {
            throw new ConfigException(
                    "--config", "cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
        }
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        Map<String, String> values = new LinkedHashMap<>();
        String[] lines = text.split("\r\n|\r|\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
                continue;
            }
            int eq = line.indexOf('=');
            String key = eq < 0 ? "" : line.substring(0, eq).strip();
            if (!FILE_KEY.matcher(key).matches()) {
                throw new ConfigException(
                        "--config",
                        file + " line " + (i + 1)
                                + ": not a setting, expected OUTBOX_NAME=value (the line is not shown: it may hold a secret)");
            }
            if (!KEYS.contains(key)) {
                throw new ConfigException(
                        shown(key, 64),
                        "unknown setting in " + file + " line " + (i + 1) + "; the nearest known one is " + nearest(key)
                                + " (docs/reference.md lists them)");
            }
            if (values.containsKey(key)) {
                throw new ConfigException(key, "is given twice in " + file + " (again on line " + (i + 1) + ")");
            }
            values.put(key, line.substring(eq + 1).strip());
        }
        return values;
    }

    /** A key of the project's build and tests, or one of Kubernetes' service links (whose {@code *_SERVICE_HOST} is present too). */
    static boolean isForeign(String key, Set<String> env) {
        if (FOREIGN_PREFIXES.stream().anyMatch(key::startsWith)) {
            return true;
        }
        for (int i = key.indexOf('_'); i > 0; i = key.indexOf('_', i + 1)) {
            String service = key.substring(0, i);
            String suffix = key.substring(i + 1);
            if (SERVICE_LINK.matcher(suffix).matches()
                    && (suffix.equals("SERVICE_HOST")
                            ? env.contains(service + "_SERVICE_PORT")
                            : env.contains(service + "_SERVICE_HOST"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code OUTBOX_HTTP_PORT=tcp://10.0.0.7:80}: the link Kubernetes gives every pod for a Service
     * named {@code outbox-http} (beside {@code OUTBOX_HTTP_SERVICE_HOST}), not a setting; an explicit
     * value in the pod's spec replaces it.
     */
    static boolean isServiceLinkPort(String key, String value, Set<String> env) {
        return key.equals(HTTP_PORT) && value.startsWith("tcp://") && isForeign(key, env);
    }

    /** The known key nearest to {@code key} by edit distance (the first in alphabetical order on a tie). */
    static String nearest(String key) {
        String best = "";
        int bestDistance = Integer.MAX_VALUE;
        for (String known : new TreeSet<>(KEYS)) {
            int d = distance(key, known);
            if (d < bestDistance) {
                best = known;
                bestDistance = d;
            }
        }
        return best;
    }

    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /** A value that holds no secret, fit for a message: at most {@code max} characters, control characters as {@code ?}. */
    static String shown(String value, int max) {
        String bounded = value.length() > max ? value.substring(0, max) + "..." : value;
        StringBuilder out = new StringBuilder(bounded.length());
        bounded.codePoints()
                .forEach(c -> out.appendCodePoint(
                        Character.isISOControl(c) || Character.getType(c) == Character.FORMAT ? '?' : c));
        return out.toString();
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
        // the driver's own reading, so that what passes here is what it connects to; the URL may hold a password: never
        // shown
        Properties parsed = org.postgresql.Driver.parseURL(url, null);
        if (parsed == null) {
            throw new ConfigException(
                    JDBC_URL,
                    "cannot be read by the PostgreSQL driver (expected jdbc:postgresql://host:5432/database;"
                            + " the URL is not shown: it may hold a password)");
        }
        if (parsed.getProperty("PGHOST", "").isEmpty()) {
            throw new ConfigException(JDBC_URL, "names no host (expected jdbc:postgresql://host:5432/database)");
        }
        if (parsed.getProperty("PGDBNAME", "").isEmpty()) {
            throw new ConfigException(JDBC_URL, "names no database (expected jdbc:postgresql://host:5432/database)");
        }
        for (String tlsFile : List.of("sslrootcert", "sslcert", "sslkey")) {
            String path = parsed.getProperty(tlsFile);
            if (path == null || path.isEmpty()) {
                continue;
            }
            Path file;
            try {
                file = Path.of(path);
            } catch (java.nio.file.InvalidPathException e) {
                throw new ConfigException(JDBC_URL, tlsFile + " is not a file name");
            }
            if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                throw new ConfigException(
                        JDBC_URL,
                        tlsFile + " names " + (Files.exists(file) ? "a file it cannot read: " : "no such file: ")
                                + shown(path, 200));
            }
        }
        return url;
    }

    @Nullable
    String jdbcUser() {
        return get(JDBC_USER);
    }

    /**
     * The role the service logs in as: {@value #JDBC_USER}, else the {@code user} of {@value #JDBC_URL},
     * else the driver's default (the operating system's user name); null when the URL cannot be read.
     */
    @Nullable
    String jdbcRole() {
        String user = jdbcUser();
        if (user != null) {
            return user;
        }
        String url = get(JDBC_URL);
        Properties parsed = url == null ? null : org.postgresql.Driver.parseURL(url, null);
        if (parsed == null) {
            return null;
        }
        String fromUrl = parsed.getProperty("user");
        return fromUrl != null && !fromUrl.isEmpty() ? fromUrl : System.getProperty("user.name");
    }

    @Nullable
    String jdbcPassword() {
        return get(JDBC_PASSWORD);
    }

    ConnectionFactory amqp() {
        String uri = get(AMQP_URI);
        if (uri == null) {
            throw new ConfigException(AMQP_URI, "is required (e.g. amqp://user:password@rabbit:5672/%2F)");
        }
        AmqpAddress address;
        try {
            address = AmqpAddress.parse(uri, AMQP_URI);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e); // names OUTBOX_AMQP_URI, never repeats the URI
        }
        SSLContext tls = amqpTls(address.tls());
        ConnectionFactory factory = AmqpFactories.of(address); // amqps: host name verification on
        if (tls != null) {
            factory.useSslProtocol(tls); // keeps the host name verification
        }
        return factory;
    }

    /**
     * The TLS context of {@value #AMQP_URI} from {@value #AMQP_TRUST_STORE} (the CAs that may sign the
     * broker's certificate; without it, the JVM's) and {@value #AMQP_KEY_STORE} (the client's key and
     * certificate, for a broker that asks for one); null when neither is set. Either store needs its
     * password and an {@code amqps://} URI: a store given for a plain connection is a mistake, not a downgrade.
     */
    private @Nullable SSLContext amqpTls(boolean amqps) {
        String trustStore = get(AMQP_TRUST_STORE);
        String keyStore = get(AMQP_KEY_STORE);
        for (String[] pair :
                new String[][] {{AMQP_TRUST_STORE, AMQP_TRUST_STORE_PASSWORD}, {AMQP_KEY_STORE, AMQP_KEY_STORE_PASSWORD}
                }) {
            if (get(pair[0]) == null && get(pair[1]) != null) {
                throw new ConfigException(pair[1], "is set but " + pair[0] + " is not: name the store it opens");
            }
        }
        if (trustStore == null && keyStore == null) {
            return null;
        }
        if (!amqps) {
            throw new ConfigException(
                    trustStore != null ? AMQP_TRUST_STORE : AMQP_KEY_STORE,
                    "is set but " + AMQP_URI + " is not amqps://: the stores are for TLS (use amqps://host:5671)");
        }
        TlsStores.Store trust = trustStore == null
                ? null
                : new TlsStores.Store(
                        AMQP_TRUST_STORE,
                        trustStore,
                        AMQP_TRUST_STORE_PASSWORD,
                        () -> password(AMQP_TRUST_STORE, AMQP_TRUST_STORE_PASSWORD));
        TlsStores.Store key = keyStore == null
                ? null
                : new TlsStores.Store(
                        AMQP_KEY_STORE,
                        keyStore,
                        AMQP_KEY_STORE_PASSWORD,
                        () -> password(AMQP_KEY_STORE, AMQP_KEY_STORE_PASSWORD));
        try {
            return TlsStores.context(trust, key);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e); // names the setting, never the password
        }
    }

    /** The password of a store; errors name the setting, never the password. */
    private String password(String key, String passwordKey) {
        String password = get(passwordKey);
        if (password == null) {
            throw new ConfigException(
                    passwordKey,
                    "is required with " + key + " (or " + passwordKey + FILE_SUFFIX + "): the store's password");
        }
        return password;
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
        tables = name(tables, SCHEMA, OutboxTables::withSchema);
        tables = name(tables, EVENTS_TABLE, OutboxTables::withEvents);
        tables = name(tables, DELIVERIES_TABLE, OutboxTables::withDeliveries);
        return tables;
    }

    private OutboxTables name(
            OutboxTables tables, String key, java.util.function.BiFunction<OutboxTables, String, OutboxTables> change) {
        String value = get(key);
        if (value == null) {
            return tables;
        }
        try {
            return change.apply(tables, value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(
                    key,
                    "must be a lower-case identifier [a-z_][a-z0-9_]* (at most 63 characters for a schema, 40 for a table)"
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
            default ->
                throw new ConfigException(QUEUE_TYPE, "must be classic or quorum, got '" + shown(value, 40) + "'");
        };
    }

    String notifyChannel() {
        String value = get(NOTIFY_CHANNEL);
        if (value == null) {
            return Outbox.DEFAULT_NOTIFY_CHANNEL;
        }
        if (!NotifyChannels.isValid(value)) {
            throw new ConfigException(
                    NOTIFY_CHANNEL, "must be " + NotifyChannels.RULE + ", got '" + shown(value, 80) + "'");
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
            default -> throw new ConfigException(POLL_ONLY, "must be true or false, got '" + shown(value, 40) + "'");
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

    /** {@link dev.outbox.relay.OutboxRelay.Builder#maxQueueDepth}: 0 (no bound) ..1,000,000, default {@value dev.outbox.relay.OutboxRelay#DEFAULT_MAX_QUEUE_DEPTH}. */
    int maxQueueDepth() {
        return integer(MAX_QUEUE_DEPTH, OutboxRelay.DEFAULT_MAX_QUEUE_DEPTH, 0, 1_000_000);
    }

    /** {@link dev.outbox.relay.OutboxRelay.Builder#wakeupLinger}: 0..1,000 ms, default {@value dev.outbox.relay.OutboxRelay#DEFAULT_WAKEUP_LINGER_MILLIS}. */
    Duration wakeupLinger() {
        return Duration.ofMillis(
                integer(WAKEUP_LINGER_MILLIS, (int) OutboxRelay.DEFAULT_WAKEUP_LINGER_MILLIS, 0, 1_000));
    }

    /**
     * What {@code relay --loop} purges by itself: null unless {@value #RETENTION_COMPLETED},
     * {@value #RETENTION_FAILED} or {@value #RETENTION_UNROUTED} is given.
     */
    @Nullable
    Retention retention() {
        Duration completed = duration(RETENTION_COMPLETED);
        Duration failed = duration(RETENTION_FAILED);
        Duration unrouted = duration(RETENTION_UNROUTED);
        int batchSize = integer(RETENTION_BATCH_SIZE, Retention.DEFAULT_BATCH_SIZE, 1, Retention.MAX_BATCH_SIZE);
        if (completed == null && failed == null && unrouted == null) {
            if (get(RETENTION_INTERVAL) != null || get(RETENTION_BATCH_SIZE) != null) {
                throw new ConfigException(
                        RETENTION_INTERVAL,
                        "is set but nothing to purge: set " + RETENTION_COMPLETED + ", " + RETENTION_FAILED + " or "
                                + RETENTION_UNROUTED);
            }
            return null;
        }
        return new Retention(completed, failed, unrouted, batchSize);
    }

    /** How often {@code relay --loop} runs retention (default 1h). */
    Duration retentionInterval() {
        Duration interval = duration(RETENTION_INTERVAL);
        return interval == null ? Duration.ofHours(1) : interval;
    }

    /** The port of {@code relay --loop}'s HTTP endpoint (metrics and health); null: no endpoint. */
    @Nullable
    Integer httpPort() {
        if (get(HTTP_PORT) == null) {
            if (get(HTTP_HOST) != null) {
                throw new ConfigException(
                        HTTP_HOST, "is set but " + HTTP_PORT + " is not: set the port to turn the HTTP endpoint on");
            }
            return null;
        }
        return integer(HTTP_PORT, 0, 1, 65_535);
    }

    /** The address the HTTP endpoint binds to: {@value #HTTP_HOST}, default 127.0.0.1 (this host only). */
    InetAddress httpHost() {
        String value = get(HTTP_HOST);
        if (value == null) {
            return InetAddress.getLoopbackAddress();
        }
        if (!HOST.matcher(value).matches()) {
            throw new ConfigException(
                    HTTP_HOST,
                    "must be a host name or an IP address (e.g. 0.0.0.0 for every interface), got '" + shown(value, 80)
                            + "'");
        }
        try {
            return InetAddress.getByName(value);
        } catch (UnknownHostException e) {
            throw new ConfigException(HTTP_HOST, "names an unknown host '" + shown(value, 80) + "'");
        }
    }

    private @Nullable Duration duration(String key) {
        String value = get(key);
        if (value == null) {
            return null;
        }
        try {
            return DurationText.parse(value, key);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key, String.valueOf(e.getMessage()).substring(key.length() + 1));
        }
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
        throw new ConfigException(
                key, "must be a whole number from " + min + " to " + max + ", got '" + shown(value, 40) + "'");
    }
}
