-- Opt-in inbox for idempotent consumers: one row per (consumer, message id) already handled.
-- Names come from Flyway placeholders: ${outbox_schema}, ${outbox_inbox}.
CREATE TABLE ${outbox_schema}.${outbox_inbox} (
    consumer     text        NOT NULL,
    message_id   text        NOT NULL,
    processed_at timestamptz NOT NULL,
    CONSTRAINT ${outbox_inbox}_pkey PRIMARY KEY (consumer, message_id),
    CONSTRAINT ${outbox_inbox}_consumer_check CHECK (length(consumer) BETWEEN 1 AND 255),
    CONSTRAINT ${outbox_inbox}_message_id_check CHECK (length(message_id) BETWEEN 1 AND 255)
);

-- Retention purges the oldest entries first.
CREATE INDEX ${outbox_inbox}_processed_at_idx ON ${outbox_schema}.${outbox_inbox} (processed_at);
