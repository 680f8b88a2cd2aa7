package dev.outbox.flyway;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The names of the optional PostgreSQL roles of the outbox, one per component (docs/roles.md): the
 * application records, the relay routes, dispatches and sweeps, the worker settles deliveries, the
 * operator runs status, the failed and blocked commands and purge. The migration owner, the role
 * that runs {@link OutboxMigrations}, owns the tables and is the only one with DDL.
 * {@link OutboxMigrations#migrateRoles} creates the four roles when missing (as NOLOGIN groups) and
 * grants each its privileges on the tables of an {@link OutboxTables}; grant them to the login roles
 * of your services.
 *
 * <pre>{@code
 * OutboxMigrations.migrateRoles(ownerDataSource, tables, OutboxRoles.defaults());
 * // then, as a role with CREATEROLE: GRANT outbox_relay TO relay_login;
 * }</pre>
 *
 * <p>Names are plain lower-case PostgreSQL identifiers ({@code [a-z_][a-z0-9_]*}, at most 63
 * characters), four different ones; roles are shared by every database of a cluster.
 *
 * @param application the role of the application that records events
 * @param relay the role of the relay
 * @param worker the role of the job services' workers
 * @param operator the role of the operator's commands
 */
public record OutboxRoles(String application, String relay, String worker, String operator) {

    public static final String DEFAULT_APPLICATION = "outbox_application";
    public static final String DEFAULT_RELAY = "outbox_relay";
    public static final String DEFAULT_WORKER = "outbox_worker";
    public static final String DEFAULT_OPERATOR = "outbox_operator";

    /** Placeholder names used by the roles script, e.g. {@code ${outbox_relay_role}}. */
    public static final String APPLICATION_PLACEHOLDER = "outbox_application_role";

    public static final String RELAY_PLACEHOLDER = "outbox_relay_role";
    public static final String WORKER_PLACEHOLDER = "outbox_worker_role";
    public static final String OPERATOR_PLACEHOLDER = "outbox_operator_role";

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");
    private static final int MAX_LENGTH = 63;

    public OutboxRoles {
        check("application", application);
        check("relay", relay);
        check("worker", worker);
        check("operator", operator);
        if (List.of(application, relay, worker, operator).stream().distinct().count() < 4) {
            throw new IllegalArgumentException(
                    "OutboxRoles: application, relay, worker and operator must be four different roles, got "
                            + application + ", " + relay + ", " + worker + ", " + operator);
        }
    }

    /** {@code outbox_application}, {@code outbox_relay}, {@code outbox_worker}, {@code outbox_operator}. */
    public static OutboxRoles defaults() {
        return new OutboxRoles(DEFAULT_APPLICATION, DEFAULT_RELAY, DEFAULT_WORKER, DEFAULT_OPERATOR);
    }

    /** The Flyway placeholders the roles script reads (beside those of {@link OutboxTables#placeholders()}). */
    public Map<String, String> placeholders() {
        Map<String, String> placeholders = new LinkedHashMap<>();
        placeholders.put(APPLICATION_PLACEHOLDER, application);
        placeholders.put(RELAY_PLACEHOLDER, relay);
        placeholders.put(WORKER_PLACEHOLDER, worker);
        placeholders.put(OPERATOR_PLACEHOLDER, operator);
        return Map.copyOf(placeholders);
    }

    private static void check(String field, String value) {
        if (value == null) {
            throw new IllegalArgumentException("OutboxRoles." + field + " must not be null");
        }
        if (value.length() > MAX_LENGTH || !IDENTIFIER.matcher(value).matches() || value.startsWith("pg_")) {
            throw new IllegalArgumentException(
                    "OutboxRoles." + field + " must be a lower-case identifier [a-z_][a-z0-9_]* of at most "
                            + MAX_LENGTH + " characters, not starting with pg_, got " + RefusedNames.shown(value));
        }
    }
}
