package dev.outbox.api;

/**
 * Turns an event into the JSON text of the {@code payload} column and back. The outbox knows no
 * other format; replace {@link #jackson()} to use your own mapping.
 *
 * <p>{@link #serialize} must refuse, with an {@link EventEncodingException} naming the field, any
 * value that {@code jsonb} would not keep as it is: NaN and infinities, unpaired surrogates,
 * {@code \u0000}, and types with no stable JSON form; and anything {@link #deserialize} could not
 * read back (the default checks Jackson's read limits when it writes), so that an event a worker
 * can never read is never recorded. An error names the field by a path that holds no payload data.
 */
public interface EventSerializer {

    /** JSON text for {@code event}; {@code eventType} is for messages only. */
    String serialize(String eventType, Object event);

    /** The event of class {@code type} from the JSON text of its payload. */
    <T> T deserialize(String json, Class<T> type);

    /**
     * Readies the reading of events of class {@code type} before the first one arrives. A worker
     * calls it once for each of its handlers' event classes when it starts, before it consumes, so
     * that its first messages do not wait for what the first read would build (the default's Jackson
     * builds a class's deserializer on its first read, and every handler thread would wait for it).
     * It reads nothing and must not throw for a
     * class it cannot read: {@link #deserialize} says so, when a message comes. Does nothing unless
     * overridden.
     */
    default void prepare(Class<?> type) {}

    /**
     * The default: Jackson with every module on the class path (java.time, and Kotlin data classes
     * once jackson-module-kotlin is there: outbox-kotlin brings it, with {@code KotlinEventSerializer})
     * and strict checks.
     */
    static EventSerializer jackson() {
        return JacksonEventSerializer.create();
    }
}
