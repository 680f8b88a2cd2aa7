-- The application's own table, migrated by Boot's Flyway beside the outbox's migrations.
CREATE TABLE orders (
    id    text PRIMARY KEY,
    email text NOT NULL
);
