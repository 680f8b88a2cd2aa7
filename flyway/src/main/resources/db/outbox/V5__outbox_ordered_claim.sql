-- The claims of a relay with ordered routes (docs/ordering.md) read what they pick and no more,
-- however long the backlog of a few keys grows.

-- T2 of such a relay claims the pending deliveries without a key, oldest available first: with
-- ready_idx alone it would step over every pending delivery of the ordered routes.
CREATE INDEX ${outbox_deliveries}_ready_unkeyed_idx ON ${outbox_schema}.${outbox_deliveries} (available_at)
    WHERE status = 'pending' AND ordering_key IS NULL;

-- T2o takes the head of each (route, key) from ordered_idx only while none of the key is in
-- flight: one probe here per key.
CREATE INDEX ${outbox_deliveries}_ordered_dispatched_idx ON ${outbox_schema}.${outbox_deliveries}
    (job_type, queue_name, ordering_key)
    WHERE ordering_key IS NOT NULL AND status = 'dispatched';
