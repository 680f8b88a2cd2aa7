package dev.outbox.api;

import java.util.List;
import java.util.UUID;

/**
 * An event id that is already recorded: thrown by {@link Outbox#record} and {@link Outbox#recordAll}
 * when a {@link NewEvent#withId(UUID) caller-chosen id} exists in the events table (committed by an
 * earlier transaction, or written earlier in this one), or appears twice in one {@code recordAll}.
 *
 * <p>The duplicate is found with {@code INSERT ... ON CONFLICT (id) DO NOTHING} and the count of
 * rows written, so PostgreSQL raises no error: <b>the caller's transaction is not aborted</b> and can
 * go on or commit. Whether to roll back is the caller's choice (for a retried request whose first
 * try committed, rolling back is usually right: the business change is already there too). To carry
 * on without an exception, use {@link Outbox#recordIfAbsent}.
 */
public final class DuplicateEventException extends OutboxException {

    private static final long serialVersionUID = 1L;

    /** At most this many ids are named in the message; {@link #ids()} holds all of them. */
    static final int IDS_IN_MESSAGE = 10;

    private final List<UUID> ids;

    public DuplicateEventException(List<UUID> ids) {
        super(message(ids));
        this.ids = List.copyOf(ids);
    }

    /** The ids that were already recorded, in the order the events were given. */
    public List<UUID> ids() {
        return ids;
    }

    private static String message(List<UUID> ids) {
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("DuplicateEventException needs at least one id");
        }
        if (ids.size() == 1) {
            return "event id " + ids.get(0)
                    + " is already recorded; nothing was written for it (the transaction is not aborted;"
                    + " Outbox.recordIfAbsent records unless the id exists)";
        }
        StringBuilder s = new StringBuilder().append(ids.size()).append(" event ids are already recorded: ");
        for (int i = 0; i < Math.min(ids.size(), IDS_IN_MESSAGE); i++) {
            s.append(i == 0 ? "" : ", ").append(ids.get(i));
        }
        if (ids.size() > IDS_IN_MESSAGE) {
            s.append(" and ").append(ids.size() - IDS_IN_MESSAGE).append(" more");
        }
        return s.append("; nothing was written for them (the transaction is not aborted)")
                .toString();
    }
}
