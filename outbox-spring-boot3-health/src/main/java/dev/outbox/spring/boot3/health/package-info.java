/**
 * The outbox health indicator of Spring Boot 3.5, compiled against 3.5's health types; the checks it
 * reads are those of {@code dev.outbox.spring.boot.autoconfigure}, shared with Boot 4.0.
 */
@NullMarked
package dev.outbox.spring.boot3.health;

import org.jspecify.annotations.NullMarked;
