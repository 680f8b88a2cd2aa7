-- Ordered delivery per (route, ordering key) (issue 39, docs/ordering.md).
--
-- An event recorded with an ordering key takes the next position of its key from
-- ${outbox_events}_keys, in the recording transaction: the upsert locks the key's row until that
-- transaction ends, so a second transaction for the same key waits, and positions follow the
-- order in which the transactions of one key commit. A rolled-back transaction gives its
-- position back with the rest of its work.
CREATE TABLE ${outbox_schema}.${outbox_events}_keys (
    ordering_key  text   NOT NULL,
    last_position bigint NOT NULL,
    CONSTRAINT ${outbox_events}_keys_pkey PRIMARY KEY (ordering_key),
    CONSTRAINT ${outbox_events}_keys_position_check CHECK (last_position >= 1)
);

-- The event's position in its key; null without a key, and for the events written before this
-- migration (those count as first).
ALTER TABLE ${outbox_schema}.${outbox_events} ADD COLUMN ordering_position bigint NULL;
ALTER TABLE ${outbox_schema}.${outbox_events}
    ADD CONSTRAINT ${outbox_events}_ordering_position_check CHECK (
        ordering_position IS NULL OR (ordering_key IS NOT NULL AND ordering_position >= 1));

-- T1o reads the unrouted events with a key per key, in position order.
CREATE INDEX ${outbox_events}_unrouted_keyed_idx ON ${outbox_schema}.${outbox_events} (ordering_key, ordering_position)
    WHERE routed_at IS NULL AND ordering_key IS NOT NULL;

-- On the deliveries of ordered routes only (null on the others):
--   ordering_key       the event's key;
--   ordering_position  the event's position in its key (0 for events written before this migration);
--   ordering_policy    what a head that fails for good does: 'block' holds the key until an
--                      operator acts, 'skip' lets the next event go (a snapshot, like the retries);
--   skipped_at         when an operator skipped this failed head: it no longer holds its key.
ALTER TABLE ${outbox_schema}.${outbox_deliveries}
    ADD COLUMN ordering_key text NULL,
    ADD COLUMN ordering_position bigint NULL,
    ADD COLUMN ordering_policy text NULL,
    ADD COLUMN skipped_at timestamptz NULL;

ALTER TABLE ${outbox_schema}.${outbox_deliveries}
    ADD CONSTRAINT ${outbox_deliveries}_ordering_check CHECK (
        (ordering_key IS NULL AND ordering_position IS NULL AND ordering_policy IS NULL AND skipped_at IS NULL)
        OR (ordering_key IS NOT NULL AND ordering_position IS NOT NULL AND ordering_policy IN ('block', 'skip'))),
    ADD CONSTRAINT ${outbox_deliveries}_skipped_check CHECK (skipped_at IS NULL OR status = 'failed');

-- The live deliveries of each (route, key) in their order: the head of a key and what holds it.
CREATE INDEX ${outbox_deliveries}_ordered_idx ON ${outbox_schema}.${outbox_deliveries}
    (job_type, queue_name, ordering_key, ordering_position)
    WHERE ordering_key IS NOT NULL AND status <> 'completed';
