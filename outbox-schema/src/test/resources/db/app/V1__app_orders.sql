CREATE TABLE orders (id bigint PRIMARY KEY, total numeric NOT NULL);
