package dev.outbox.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class UuidV7Test {

    private final IdGenerator ids = IdGenerator.uuidV7();

    @Test
    void makesVersion7Variant2Ids() {
        UUID id = ids.next();
        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).isEqualTo(2);
    }

    @Test
    void startsWithTheCurrentUnixMilliseconds() {
        long before = System.currentTimeMillis();
        UUID id = ids.next();
        long after = System.currentTimeMillis();
        long millis = id.getMostSignificantBits() >>> 16;
        // a burst may borrow a few milliseconds ahead of the clock to stay ordered
        assertThat(millis).isBetween(before, after + 1_000);
    }

    @Test
    void makesStrictlyIncreasingIdsOver100000CallsInOneThread() {
        UUID previous = ids.next();
        for (int i = 0; i < 100_000; i++) {
            UUID next = ids.next();
            assertThat(next.version()).isEqualTo(7);
            assertThat(next.variant()).isEqualTo(2);
            // PostgreSQL compares uuids as unsigned bytes; so does this
            assertThat(Long.compareUnsigned(next.getMostSignificantBits(), previous.getMostSignificantBits()))
                    .as("id %d: %s after %s", i, next, previous)
                    .isPositive();
            assertThat(next.toString()).isGreaterThan(previous.toString());
            previous = next;
        }
    }
}
