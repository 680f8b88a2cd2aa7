-- Outbox tables. Names come from Flyway placeholders so that an application chooses them before
-- the first migration: ${outbox_schema}, ${outbox_events}, ${outbox_deliveries}.
-- Renaming them later is the application's own migration.

CREATE TYPE ${outbox_schema}.outbox_delivery_status AS ENUM ('pending', 'dispatched', 'completed', 'failed');

CREATE TYPE ${outbox_schema}.outbox_route_kind AS ENUM ('job', 'publish');

-- One row per integration event. Immutable once written except routed_at, which the relay sets
-- once when it has created the event's deliveries.
CREATE TABLE ${outbox_schema}.${outbox_events} (
    id           uuid        NOT NULL,
    event_type   text        NOT NULL,
    payload      jsonb       NOT NULL,
    ordering_key text        NULL,
    traceparent  text        NULL,
    tracestate   text        NULL,
    created_at   timestamptz NOT NULL,
    routed_at    timestamptz NULL,
    CONSTRAINT ${outbox_events}_pkey PRIMARY KEY (id),
    CONSTRAINT ${outbox_events}_event_type_check CHECK (event_type ~ '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,254}$'),
    CONSTRAINT ${outbox_events}_ordering_key_check CHECK (ordering_key IS NULL OR length(ordering_key) BETWEEN 1 AND 255),
    CONSTRAINT ${outbox_events}_traceparent_check CHECK (traceparent IS NULL OR traceparent ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'),
    CONSTRAINT ${outbox_events}_tracestate_check CHECK (tracestate IS NULL OR length(tracestate) <= 512),
    CONSTRAINT ${outbox_events}_routed_at_check CHECK (routed_at IS NULL OR routed_at >= created_at)
);

-- T1 reads the unrouted events oldest first (ids are time-ordered UUIDv7).
CREATE INDEX ${outbox_events}_unrouted_idx ON ${outbox_schema}.${outbox_events} (id) WHERE routed_at IS NULL;

-- One row per (event, route). The route's settings are a snapshot taken when the event is routed.
CREATE TABLE ${outbox_schema}.${outbox_deliveries} (
    id                       uuid                                    NOT NULL,
    event_id                 uuid                                    NOT NULL,
    kind                     ${outbox_schema}.outbox_route_kind      NOT NULL DEFAULT 'job',
    job_type                 text                                    NOT NULL,
    queue_name               text                                    NOT NULL,
    exchange                 text                                    NULL,
    routing_key              text                                    NULL,
    retry_delays_seconds     integer[]                               NOT NULL,
    delivery_timeout_seconds integer                                 NOT NULL,
    status                   ${outbox_schema}.outbox_delivery_status NOT NULL DEFAULT 'pending',
    attempts                 integer                                 NOT NULL DEFAULT 0,
    dispatch_id              uuid                                    NULL,
    available_at             timestamptz                             NOT NULL,
    dispatched_at            timestamptz                             NULL,
    delivery_timeout_at      timestamptz                             NULL,
    completed_at             timestamptz                             NULL,
    failed_at                timestamptz                             NULL,
    failure_reason           text                                    NULL,
    created_at               timestamptz                             NOT NULL,
    updated_at               timestamptz                             NOT NULL,
    CONSTRAINT ${outbox_deliveries}_pkey PRIMARY KEY (id),
    CONSTRAINT ${outbox_deliveries}_event_fkey FOREIGN KEY (event_id)
        REFERENCES ${outbox_schema}.${outbox_events} (id) ON DELETE CASCADE,
    CONSTRAINT ${outbox_deliveries}_route_key UNIQUE (event_id, job_type, queue_name),

    -- the route snapshot
    CONSTRAINT ${outbox_deliveries}_job_type_check CHECK (job_type ~ '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,254}$'),
    CONSTRAINT ${outbox_deliveries}_queue_name_check CHECK (length(queue_name) BETWEEN 1 AND 255),
    CONSTRAINT ${outbox_deliveries}_kind_check CHECK (
        (kind = 'job' AND exchange IS NULL AND routing_key IS NULL)
        OR (kind = 'publish' AND exchange IS NOT NULL AND length(exchange) <= 255
            AND routing_key IS NOT NULL AND length(routing_key) <= 255)),
    CONSTRAINT ${outbox_deliveries}_retry_delays_check CHECK (
        array_position(retry_delays_seconds, NULL) IS NULL
        AND coalesce(array_ndims(retry_delays_seconds), 1) = 1
        AND cardinality(retry_delays_seconds) <= 100
        AND 0 < ALL (retry_delays_seconds)),
    CONSTRAINT ${outbox_deliveries}_timeout_check CHECK (delivery_timeout_seconds > 0),
    CONSTRAINT ${outbox_deliveries}_attempts_check CHECK (attempts >= 0 AND attempts <= cardinality(retry_delays_seconds) + 1),
    CONSTRAINT ${outbox_deliveries}_failure_reason_check CHECK (failure_reason IS NULL OR failure_reason ~ '^[a-z][a-z0-9_]{0,63}$'),

    -- each status and the timestamps it implies
    CONSTRAINT ${outbox_deliveries}_pending_check CHECK (
        status <> 'pending' OR (
            delivery_timeout_at IS NULL AND dispatched_at IS NULL
            AND completed_at IS NULL AND failed_at IS NULL AND failure_reason IS NULL)),
    CONSTRAINT ${outbox_deliveries}_dispatched_check CHECK (
        status <> 'dispatched' OR (
            attempts >= 1 AND dispatch_id IS NOT NULL
            AND dispatched_at IS NOT NULL AND delivery_timeout_at IS NOT NULL
            AND delivery_timeout_at > dispatched_at
            AND completed_at IS NULL AND failed_at IS NULL AND failure_reason IS NULL)),
    CONSTRAINT ${outbox_deliveries}_completed_check CHECK (
        status <> 'completed' OR (
            attempts >= 1 AND dispatch_id IS NOT NULL AND completed_at IS NOT NULL
            AND delivery_timeout_at IS NULL
            AND failed_at IS NULL AND failure_reason IS NULL)),
    CONSTRAINT ${outbox_deliveries}_failed_check CHECK (
        status <> 'failed' OR (
            failed_at IS NOT NULL AND failure_reason IS NOT NULL
            AND delivery_timeout_at IS NULL AND completed_at IS NULL))
);

-- T2 claims ready pending deliveries, oldest available first.
CREATE INDEX ${outbox_deliveries}_ready_idx ON ${outbox_schema}.${outbox_deliveries} (available_at)
    WHERE status = 'pending';

-- T4 sweeps dispatched deliveries whose result is overdue.
CREATE INDEX ${outbox_deliveries}_timeout_idx ON ${outbox_schema}.${outbox_deliveries} (delivery_timeout_at)
    WHERE status = 'dispatched';

-- Operators list failed deliveries, newest first.
CREATE INDEX ${outbox_deliveries}_failed_idx ON ${outbox_schema}.${outbox_deliveries} (failed_at)
    WHERE status = 'failed';
