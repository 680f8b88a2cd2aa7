-- The application's own first migration (Flyway's default location, classpath:db/migration).
CREATE TABLE orders (
    id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    customer text          NOT NULL,
    total    numeric(12,2) NOT NULL
);
