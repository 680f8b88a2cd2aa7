package dev.outbox.spring.boot.autoconfigure;

import dev.outbox.api.Outbox;
import dev.outbox.flyway.OutboxTables;
import java.util.function.Function;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code outbox.*} properties. The names must match those the migrations were run with; they are
 * checked at startup and a bad one fails it with a message naming the property.
 */
@ConfigurationProperties(prefix = "outbox")
public class OutboxProperties {

    /** The schema of the outbox tables. */
    private String schema = OutboxTables.DEFAULT_SCHEMA;

    /** The events table. */
    private String eventsTable = OutboxTables.DEFAULT_EVENTS;

    /** The deliveries table. */
    private String deliveriesTable = OutboxTables.DEFAULT_DELIVERIES;

    /** The NOTIFY channel that wakes the relays after a recording transaction commits. */
    private String notifyChannel = Outbox.DEFAULT_NOTIFY_CHANNEL;

    /** Whether a recording transaction sends a NOTIFY on {@code outbox.notify-channel}. */
    private boolean notifications = true;

    private final Flyway flyway = new Flyway();

    public String getSchema() {
        return schema;
    }

    public void setSchema(String schema) {
        this.schema = schema;
    }

    public String getEventsTable() {
        return eventsTable;
    }

    public void setEventsTable(String eventsTable) {
        this.eventsTable = eventsTable;
    }

    public String getDeliveriesTable() {
        return deliveriesTable;
    }

    public void setDeliveriesTable(String deliveriesTable) {
        this.deliveriesTable = deliveriesTable;
    }

    public String getNotifyChannel() {
        return notifyChannel;
    }

    public void setNotifyChannel(String notifyChannel) {
        this.notifyChannel = notifyChannel;
    }

    public boolean isNotifications() {
        return notifications;
    }

    public void setNotifications(boolean notifications) {
        this.notifications = notifications;
    }

    public Flyway getFlyway() {
        return flyway;
    }

    /**
     * The tables these properties name.
     *
     * @throws IllegalArgumentException naming the {@code outbox.*} property whose value is not a valid name
     */
    public OutboxTables tables() {
        OutboxTables tables = OutboxTables.defaults();
        tables = checked("outbox.schema", schema, tables::withSchema);
        tables = checked("outbox.events-table", eventsTable, tables::withEvents);
        return checked("outbox.deliveries-table", deliveriesTable, tables::withDeliveries);
    }

    /**
     * Gives {@code builder} the tables, the notifications and their channel of these properties.
     *
     * @throws IllegalArgumentException naming the {@code outbox.*} property whose value is not valid
     */
    Outbox.Builder applyTo(Outbox.Builder builder) {
        builder.tables(tables()).notifications(notifications);
        return notifications ? checked("outbox.notify-channel", notifyChannel, builder::notifyChannel) : builder;
    }

    private static <T> T checked(String property, String value, Function<String, T> with) {
        try {
            return with.apply(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(property + " = '" + value + "' is not valid: " + e.getMessage(), e);
        }
    }

    /** {@code outbox.flyway.*}. */
    public static class Flyway {

        /**
         * Whether the outbox migrations run at startup (after the application's own Flyway migrations,
         * with their own history table). Off for teams that copy the SQL into their own migrations.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
