-- Optional: one PostgreSQL role per component of the outbox, with only the privileges it needs
-- (docs/roles.md). Run by the migration owner, the role that ran the outbox migrations and owns the
-- tables: it is the only role with DDL, and the only one that may grant on them.
--
-- Names come from Flyway placeholders: the tables' ${outbox_schema}, ${outbox_events},
-- ${outbox_deliveries}, ${outbox_inbox} (those of the migrations), and the roles'
-- ${outbox_application_role}, ${outbox_relay_role}, ${outbox_worker_role}, ${outbox_operator_role}.
--
-- Idempotent: run it again (after a new outbox migration, say) and the grants are those below,
-- no more: each role's table privileges are revoked before they are granted. The roles are
-- NOLOGIN groups, created when missing (which needs CREATEROLE; create them beforehand
-- otherwise); grant them to the login roles of your services: GRANT outbox_relay TO relay_login.

DO $roles$
DECLARE
    r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['${outbox_application_role}', '${outbox_relay_role}', '${outbox_worker_role}', '${outbox_operator_role}'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = r) THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', r);
        END IF;
    END LOOP;
END
$roles$;

GRANT USAGE ON SCHEMA ${outbox_schema}
    TO ${outbox_application_role}, ${outbox_relay_role}, ${outbox_worker_role}, ${outbox_operator_role};

REVOKE ALL ON TABLE ${outbox_schema}.${outbox_events}, ${outbox_schema}.${outbox_deliveries}, ${outbox_schema}.${outbox_events}_keys
    FROM ${outbox_application_role}, ${outbox_relay_role}, ${outbox_worker_role}, ${outbox_operator_role};

-- The application records: INSERT with ON CONFLICT (id) DO NOTHING RETURNING id (the duplicate
-- check of record and recordIfAbsent reads the id), and DELETE of the rows a recordAll inserted
-- when some of its ids were recorded already (all or none). The ordering keys' upsert takes the
-- next positions (INSERT ... ON CONFLICT DO UPDATE ... RETURNING). pg_notify, which wakes the
-- relays, is PUBLIC's by default.
GRANT SELECT (id), INSERT, DELETE ON TABLE ${outbox_schema}.${outbox_events} TO ${outbox_application_role};
GRANT SELECT, INSERT, UPDATE ON TABLE ${outbox_schema}.${outbox_events}_keys TO ${outbox_application_role};

-- The relay routes (T1: reads unrouted events FOR UPDATE, sets routed_at, inserts deliveries),
-- dispatches (T2, T3) and sweeps (T4), and reads the status gauges. LISTEN, the advisory locks of
-- ordered routes and set_config of planner settings need no grant.
GRANT SELECT, UPDATE ON TABLE ${outbox_schema}.${outbox_events} TO ${outbox_relay_role};
GRANT SELECT, INSERT, UPDATE ON TABLE ${outbox_schema}.${outbox_deliveries} TO ${outbox_relay_role};

-- The worker reads the event and its delivery, and settles the delivery (start, T5 to T8).
GRANT SELECT ON TABLE ${outbox_schema}.${outbox_events} TO ${outbox_worker_role};
GRANT SELECT, UPDATE ON TABLE ${outbox_schema}.${outbox_deliveries} TO ${outbox_worker_role};

-- The operator: status, failed list/show/requeue/remove, blocked keys, purge (retention). Purge
-- locks the rows it deletes (FOR UPDATE SKIP LOCKED), which PostgreSQL allows with UPDATE only;
-- it deletes the ordering keys left with nothing to order.
GRANT SELECT, UPDATE, DELETE ON TABLE ${outbox_schema}.${outbox_events} TO ${outbox_operator_role};
GRANT SELECT, UPDATE, DELETE ON TABLE ${outbox_schema}.${outbox_deliveries} TO ${outbox_operator_role};
GRANT SELECT, UPDATE, DELETE ON TABLE ${outbox_schema}.${outbox_events}_keys TO ${outbox_operator_role};

-- The opt-in inbox (migrateInbox), when it is there: the worker's job marks a message handled and
-- purges old entries.
DO $inbox$
BEGIN
    IF to_regclass('${outbox_schema}.${outbox_inbox}') IS NOT NULL THEN
        REVOKE ALL ON TABLE ${outbox_schema}.${outbox_inbox}
            FROM ${outbox_application_role}, ${outbox_relay_role}, ${outbox_worker_role}, ${outbox_operator_role};
        GRANT SELECT, INSERT, DELETE ON TABLE ${outbox_schema}.${outbox_inbox} TO ${outbox_worker_role};
    END IF;
END
$inbox$;
