-- The demo application's own migration: its business table.
CREATE TABLE orders (
    id       bigint        PRIMARY KEY,
    customer varchar(100)  NOT NULL,
    total    numeric(12,2) NOT NULL
);
