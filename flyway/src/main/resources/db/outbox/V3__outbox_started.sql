-- Overload (issue 37): whether a dispatch was picked up by a worker, and how often a delivery was
-- sent again because no worker picked it up in time.
--
-- started_at: set by the worker when it takes the message of the current dispatch (the start
-- transition); null while the message waits in the queue. T4 then tells "dispatched, never picked
-- up" (re-dispatched without counting an attempt) from "picked up, and its result is overdue"
-- (retry-or-fail as before). Kept on completed and failed rows: a failed row with started_at null
-- never ran its handler on its last attempt. No index reads it, so that the start stays a HOT update.
--
-- unstarted_timeouts: how many dispatches of this delivery timed out before a worker picked them
-- up; bounded by the relay (docs/state-machine.md, T4u), reset by an operator's requeue (T9).
ALTER TABLE ${outbox_schema}.${outbox_deliveries}
    ADD COLUMN started_at timestamptz NULL,
    ADD COLUMN unstarted_timeouts integer NOT NULL DEFAULT 0;

ALTER TABLE ${outbox_schema}.${outbox_deliveries}
    ADD CONSTRAINT ${outbox_deliveries}_unstarted_timeouts_check CHECK (unstarted_timeouts >= 0),
    ADD CONSTRAINT ${outbox_deliveries}_started_check CHECK (
        started_at IS NULL OR (status <> 'pending' AND dispatched_at IS NOT NULL AND started_at >= dispatched_at));
