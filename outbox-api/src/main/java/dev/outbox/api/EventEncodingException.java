package dev.outbox.api;

/**
 * An event that cannot be stored: a value with no JSON form PostgreSQL's {@code jsonb} keeps as it
 * is (NaN, an infinity, an unpaired surrogate, {@code \u0000}), a type with no stable JSON form, or a
 * value beyond what a reader accepts (a string, number, key or nesting over the read limits).
 * Thrown before anything is written; {@link #path()} names the field, e.g. {@code $.lines[2].price},
 * and a map entry by its position, never its key ({@code $.labels.<key #3>}): the message holds no
 * payload data.
 */
public final class EventEncodingException extends OutboxException {

    private static final long serialVersionUID = 1L;

    private final String path;

    public EventEncodingException(String eventType, String path, String problem) {
        super("cannot record event of type '" + LogText.of(eventType) + "': " + path + " " + problem);
        this.path = path;
    }

    public EventEncodingException(String eventType, String path, String problem, Throwable cause) {
        super("cannot record event of type '" + LogText.of(eventType) + "': " + path + " " + problem, cause);
        this.path = path;
    }

    /** The JSON path of the value that cannot be stored. */
    public String path() {
        return path;
    }
}
