package com.example.boot.bench;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The sample application without the outbox: Boot's DataSource, Flyway (the orders migration) and
 * jOOQ, and nothing of ours. The outbox's auto-configurations are excluded by property
 * ({@link BootBench#PLAIN_EXCLUDES}); their jars stay on the class path.
 */
@SpringBootApplication
public class PlainApplication {}
