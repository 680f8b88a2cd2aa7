package dev.outbox.flyway;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The schema and table names of one outbox. They are chosen before the first migration (they become
 * Flyway placeholders) and the same value is given to the run time, where jOOQ's render mapping sends
 * every generated query to these names. Renaming the tables later is the application's own migration.
 *
 * <p>Names are plain lower-case PostgreSQL identifiers ({@code [a-z_][a-z0-9_]*}); table names are at
 * most 40 characters so that the index and constraint names derived from them stay within
 * PostgreSQL's 63.
 *
 * <pre>{@code
 * OutboxTables tables = OutboxTables.defaults().withSchema("billing");
 * }</pre>
 *
 * @param schema the schema holding the tables and the two enum types
 * @param events the events table
 * @param deliveries the deliveries table
 * @param inbox the optional inbox table of idempotent consumers
 */
public record OutboxTables(String schema, String events, String deliveries, String inbox) {

    public static final String DEFAULT_SCHEMA = "public";
    public static final String DEFAULT_EVENTS = "outbox_events";
    public static final String DEFAULT_DELIVERIES = "outbox_deliveries";
    public static final String DEFAULT_INBOX = "outbox_inbox";

    /** Placeholder names used by the migrations, e.g. {@code ${outbox_events}}. */
    public static final String SCHEMA_PLACEHOLDER = "outbox_schema";

    public static final String EVENTS_PLACEHOLDER = "outbox_events";
    public static final String DELIVERIES_PLACEHOLDER = "outbox_deliveries";
    public static final String INBOX_PLACEHOLDER = "outbox_inbox";

    /** The ordering keys' table is named after the events table: {@code outbox_events_keys} ({@link #keys()}). */
    public static final String KEYS_SUFFIX = "_keys";

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");
    private static final int MAX_SCHEMA_LENGTH = 63;
    private static final int MAX_TABLE_LENGTH = 40;

    public OutboxTables {
        check("schema", schema, MAX_SCHEMA_LENGTH);
        check("events", events, MAX_TABLE_LENGTH);
        check("deliveries", deliveries, MAX_TABLE_LENGTH);
        check("inbox", inbox, MAX_TABLE_LENGTH);
        if (events.equals(deliveries) || events.equals(inbox) || deliveries.equals(inbox)) {
            throw new IllegalArgumentException(
                    "OutboxTables: events, deliveries and inbox must be three different names, got " + events + ", "
                            + deliveries + ", " + inbox);
        }
        if ((events + KEYS_SUFFIX).equals(deliveries) || (events + KEYS_SUFFIX).equals(inbox)) {
            throw new IllegalArgumentException(
                    "OutboxTables: " + events + KEYS_SUFFIX + " is the ordering keys' table of events " + events
                            + "; deliveries and inbox need other names, got " + deliveries + ", " + inbox);
        }
    }

    /** The table of the ordering keys' last positions: the events table's name with {@value #KEYS_SUFFIX}. */
    public String keys() {
        return events + KEYS_SUFFIX;
    }

    /** {@code public.outbox_events}, {@code public.outbox_deliveries}, {@code public.outbox_inbox}. */
    public static OutboxTables defaults() {
        return new OutboxTables(DEFAULT_SCHEMA, DEFAULT_EVENTS, DEFAULT_DELIVERIES, DEFAULT_INBOX);
    }

    public OutboxTables withSchema(String schema) {
        return new OutboxTables(schema, events, deliveries, inbox);
    }

    public OutboxTables withEvents(String events) {
        return new OutboxTables(schema, events, deliveries, inbox);
    }

    public OutboxTables withDeliveries(String deliveries) {
        return new OutboxTables(schema, events, deliveries, inbox);
    }

    public OutboxTables withInbox(String inbox) {
        return new OutboxTables(schema, events, deliveries, inbox);
    }

    /** The Flyway placeholders the migrations read, in a stable order. */
    public Map<String, String> placeholders() {
        Map<String, String> placeholders = new LinkedHashMap<>();
        placeholders.put(SCHEMA_PLACEHOLDER, schema);
        placeholders.put(EVENTS_PLACEHOLDER, events);
        placeholders.put(DELIVERIES_PLACEHOLDER, deliveries);
        placeholders.put(INBOX_PLACEHOLDER, inbox);
        return Map.copyOf(placeholders);
    }

    private static void check(String field, String value, int maxLength) {
        if (value == null) {
            throw new IllegalArgumentException("OutboxTables." + field + " must not be null");
        }
        if (value.length() > maxLength || !IDENTIFIER.matcher(value).matches()) {
            throw new IllegalArgumentException(
                    "OutboxTables." + field + " must be a lower-case identifier [a-z_][a-z0-9_]* of at most "
                            + maxLength + " characters, got " + RefusedNames.shown(value));
        }
    }
}
