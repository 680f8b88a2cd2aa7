package dev.outbox.faults;

import java.time.Instant;

/** A broker stop or a PostgreSQL restart, from the command that began it to the one that ended it. */
record Outage(Kind kind, Instant start, Instant end) {

    enum Kind {
        BROKER_STOP("broker stop"),
        PG_RESTART("PostgreSQL restart");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    double seconds() {
        return (end.toEpochMilli() - start.toEpochMilli()) / 1000.0;
    }
}
