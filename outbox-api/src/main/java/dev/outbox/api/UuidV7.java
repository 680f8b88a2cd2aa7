package dev.outbox.api;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter that keeps ids
 * made in the same millisecond in order (method 1 of section 6.2), then 62 random bits.
 */
final class UuidV7 implements IdGenerator {

    static final UuidV7 INSTANCE = new UuidV7();

    private final SecureRandom seed = new SecureRandom();
    private long lastMillis = -1;
    private int counter;

    private UuidV7() {}

    @Override
    public UUID next() {
        long millis;
        int sequence;
        synchronized (this) {
            millis = System.currentTimeMillis();
            if (millis <= lastMillis) {
                millis = lastMillis;
                counter++;
                if (counter > 0xFFF) { // counter spent: borrow the next millisecond
                    millis = ++lastMillis;
                    counter = seed.nextInt(0x400);
                }
            } else {
                lastMillis = millis;
                counter = seed.nextInt(0x400); // leave room to count up within the millisecond
            }
            sequence = counter;
        }
        long msb = (millis << 16) | 0x7000L | sequence;
        long lsb = (ThreadLocalRandom.current().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb);
    }
}
