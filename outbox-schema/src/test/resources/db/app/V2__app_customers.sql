CREATE TABLE customers (id bigint PRIMARY KEY, name text NOT NULL);
