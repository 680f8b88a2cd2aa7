CREATE TABLE orders (id text PRIMARY KEY);
