package dev.outbox.api;

import java.util.UUID;

/** Makes ids for new events and deliveries; the default makes time-ordered UUIDs (v7, RFC 9562). */
@FunctionalInterface
public interface IdGenerator {

    UUID next();

    /** Time-ordered UUIDs (version 7), monotonic within this JVM. */
    static IdGenerator uuidV7() {
        return UuidV7.INSTANCE;
    }
}
