package dev.outbox.faults;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The suite's own tables beside the outbox's, in the same schema: one row per handler call (written
 * by {@link FaultWorker}) and one row per change of a delivery's status or dispatch id (written by a
 * trigger), so that completions and re-dispatches are counted by the database, not the logs. The
 * suite measures; these statements are its instruments, not runtime code of the outbox.
 */
final class Instrumentation {

    static final String CALLS = "fault_handler_calls";
    static final String TRANSITIONS = "fault_transitions";
    /** The events the suite healed: their handler succeeds from then on ({@link FaultWorker}). */
    static final String HEALED = "fault_healed";

    private Instrumentation() {}

    static void install(DataSource dataSource, String schema) {
        String s = schema + ".";
        try (Connection c = dataSource.getConnection();
                Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + s + CALLS
                    + " (id bigserial PRIMARY KEY, delivery_id uuid NOT NULL, event_id uuid NOT NULL,"
                    + " dispatch_id uuid NOT NULL, attempt int NOT NULL, pid bigint NOT NULL, outcome text NOT NULL,"
                    + " called_at timestamptz NOT NULL DEFAULT clock_timestamp())");
            st.execute("CREATE TABLE " + s + TRANSITIONS + " (id bigserial PRIMARY KEY, delivery_id uuid NOT NULL,"
                    + " old_status text, new_status text NOT NULL, dispatch_id uuid, attempts int NOT NULL, failure_reason text,"
                    + " old_timeout_at timestamptz, at timestamptz NOT NULL DEFAULT clock_timestamp())");
            st.execute("CREATE TABLE " + s + HEALED + " (event_id uuid PRIMARY KEY)");
            st.execute("CREATE FUNCTION " + s + "fault_log_transition() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " IF TG_OP = 'UPDATE' AND OLD.status = NEW.status AND OLD.dispatch_id IS NOT DISTINCT FROM NEW.dispatch_id"
                    + " THEN RETURN NULL; END IF;"
                    + " INSERT INTO " + s + TRANSITIONS
                    + " (delivery_id, old_status, new_status, dispatch_id, attempts, failure_reason, old_timeout_at)"
                    + " VALUES (NEW.id, CASE WHEN TG_OP = 'UPDATE' THEN OLD.status::text END, NEW.status::text, NEW.dispatch_id,"
                    + " NEW.attempts, NEW.failure_reason, CASE WHEN TG_OP = 'UPDATE' THEN OLD.delivery_timeout_at END);"
                    + " RETURN NULL; END $$");
            st.execute("CREATE TRIGGER fault_log_transition AFTER INSERT OR UPDATE ON " + s
                    + "outbox_deliveries FOR EACH ROW EXECUTE FUNCTION " + s + "fault_log_transition()");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot install the suite's tables (SQLState " + e.getSQLState() + ")", e);
        }
    }
}
