package dev.outbox.faults;

import dev.outbox.admin.BlockedKey;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.flyway.OutboxTables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The suite on ordered routes (issue 39, docs/ordering.md): the checks of the order per key, and the
 * operator who unblocks keys. Each time the run settles (nothing routable left, nothing open except
 * behind a blocked head), it checks that every blocked key holds exactly its own deliveries, then
 * skips every other blocked head and heals and requeues the rest, and waits for the next settling,
 * until no key is blocked. After the run, from the database: handler starts per key never go back
 * in the order, and no delivery of a key was dispatched before the one ahead of it had ended.
 * Plain SQL over the outbox's and the suite's tables, like {@link Counts}: a measuring instrument.
 *
 * @see Scenario#ordered()
 */
final class OrderedKeys {

    /** Unblocking rounds at most: each event fails for good once at most, so a key needs as many rounds as it has such events. */
    static final int MAX_ROUNDS = 20;

    /**
     * What the ordered routes did.
     *
     * @param rounds unblocking rounds the suite ran
     * @param blockedHeads blocked heads met over all rounds
     * @param skipped heads skipped (they stay failed, their key goes on)
     * @param requeued heads healed and requeued (they ran again in their place)
     * @param overtaken deliveries found dispatched or run behind a blocked head of their key, at a
     *     settling (that every other key had nothing left waiting is the settling itself)
     * @param outOfOrderStarts handler calls that began after a call of a later delivery of their key
     * @param overlapping deliveries first dispatched before the one ahead of them in their key had ended
     *     (completed, or skipped)
     * @param stillBlocked keys blocked after the last round
     * @param keys keys with at least one delivery
     */
    record Result(
            int rounds,
            long blockedHeads,
            long skipped,
            long requeued,
            long overtaken,
            long outOfOrderStarts,
            long overlapping,
            long stillBlocked,
            long keys) {

        /** The ordering promises that did not hold. */
        List<String> broken() {
            List<String> broken = new ArrayList<>();
            if (outOfOrderStarts > 0) {
                broken.add(outOfOrderStarts + " handler call(s) began after a later delivery of their key");
            }
            if (overlapping > 0) {
                broken.add(overlapping + " delivery(ies) dispatched while the one ahead in their key was still open");
            }
            if (overtaken > 0) {
                broken.add(overtaken + " delivery(ies) ran behind a blocked head of their key");
            }
            if (stillBlocked > 0) {
                broken.add(stillBlocked + " key(s) still blocked after skip and requeue");
            }
            return broken;
        }
    }

    private final Counts counts;
    private final DataSource dataSource;
    private final OutboxAdmin admin;
    private final String s;
    private int rounds;
    private long blockedHeads;
    private long skipped;
    private long requeued;
    private long overtaken;

    OrderedKeys(Counts counts, DataSource dataSource, OutboxTables tables) {
        this.counts = counts;
        this.dataSource = dataSource;
        this.admin = OutboxAdmin.of(dataSource, tables);
        this.s = tables.schema() + ".";
    }

    /**
     * One settling: checks that the blocked keys hold exactly their deliveries, then unblocks them,
     * skipping every other head (by key) and healing and requeueing the others.
     *
     * @return the blocked heads this round met (0: the run is over)
     */
    int unblockRound() {
        overtaken += counts.count("SELECT count(*) FROM " + s + "outbox_deliveries p WHERE "
                + counts.behindBlockingHead("p") + " AND (p.status <> 'pending' OR p.attempts > 0)");
        List<BlockedKey> heads = new ArrayList<>(admin.blockedKeys(OutboxAdmin.MAX_PAGE));
        if (heads.isEmpty()) {
            return 0;
        }
        rounds++;
        blockedHeads += heads.size();
        heads.sort(Comparator.comparing(BlockedKey::orderingKey));
        List<UUID> toSkip = new ArrayList<>();
        List<BlockedKey> toRequeue = new ArrayList<>();
        for (int i = 0; i < heads.size(); i++) {
            if (i % 2 == 0) {
                toSkip.add(heads.get(i).deliveryId());
            } else {
                toRequeue.add(heads.get(i));
            }
        }
        skipped += toSkip.isEmpty() ? 0 : admin.skipBlocked(toSkip, false).deliveries();
        heal(toRequeue);
        requeued += toRequeue.isEmpty()
                ? 0
                : admin.requeueBlocked(
                                toRequeue.stream().map(BlockedKey::deliveryId).toList(), false)
                        .deliveries();
        return heads.size();
    }

    private void heal(List<BlockedKey> heads) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement st = c.prepareStatement("INSERT INTO " + s + Instrumentation.HEALED
                        + " (event_id) VALUES (?) ON CONFLICT DO NOTHING")) {
            for (BlockedKey head : heads) {
                st.setObject(1, head.eventId());
                st.addBatch();
            }
            st.executeBatch();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot heal the blocked heads (SQLState " + e.getSQLState() + ")", e);
        }
    }

    /** The checks over the whole run, read once every process has stopped. */
    Result result() {
        long outOfOrder = counts.count(
                "SELECT count(*) FROM (SELECT d.ordering_position AS pos, max(d.ordering_position) OVER ("
                        + "PARTITION BY d.job_type, d.queue_name, d.ordering_key ORDER BY c.called_at, c.id"
                        + " ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM " + s
                        + Instrumentation.CALLS + " c JOIN " + s
                        + "outbox_deliveries d ON d.id = c.delivery_id WHERE d.ordering_key IS NOT NULL) x WHERE x.before > x.pos");
        long overlapping = counts.count(
                "SELECT count(*) FROM (SELECT first_dispatch, lag(ordering_position) OVER w AS ahead,"
                        + " lag(ended) OVER w AS ahead_ended FROM (SELECT d.job_type, d.queue_name, d.ordering_key, d.ordering_position,"
                        + " (SELECT min(t.at) FROM " + s + Instrumentation.TRANSITIONS
                        + " t WHERE t.delivery_id = d.id AND t.new_status = 'dispatched')"
                        + " AS first_dispatch, coalesce((SELECT max(t.at) FROM " + s + Instrumentation.TRANSITIONS
                        + " t WHERE t.delivery_id = d.id AND t.new_status = 'completed'), d.skipped_at) AS ended FROM "
                        + s
                        + "outbox_deliveries d WHERE d.ordering_key IS NOT NULL) life"
                        + " WINDOW w AS (PARTITION BY job_type, queue_name, ordering_key ORDER BY ordering_position)) x"
                        + " WHERE x.ahead IS NOT NULL AND x.first_dispatch IS NOT NULL AND (x.ahead_ended IS NULL OR x.first_dispatch < x.ahead_ended)");
        long stillBlocked = admin.blockedKeys(OutboxAdmin.MAX_PAGE).size();
        long keys = counts.count("SELECT count(DISTINCT (job_type, queue_name, ordering_key)) FROM " + s
                + "outbox_deliveries WHERE ordering_key IS NOT NULL");
        return new Result(
                rounds, blockedHeads, skipped, requeued, overtaken, outOfOrder, overlapping, stillBlocked, keys);
    }
}
