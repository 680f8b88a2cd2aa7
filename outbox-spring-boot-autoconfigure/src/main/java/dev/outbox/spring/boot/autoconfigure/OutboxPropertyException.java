package dev.outbox.spring.boot.autoconfigure;

/**
 * A bad {@code outbox.*} setting, found when a bean is built: the message names the property and says
 * what is wrong, and {@link OutboxPropertyFailureAnalyzer} shows it at the top of the failed start
 * instead of a bean creation stack. An {@link IllegalArgumentException}, as the builders' own checks are.
 */
public final class OutboxPropertyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String property;

    /**
     * @param property the property at fault ({@code outbox.relay.routes-file})
     * @param message what is wrong, starting with the property's name
     */
    public OutboxPropertyException(String property, String message, Throwable cause) {
        super(message, cause);
        this.property = property;
    }

    public OutboxPropertyException(String property, String message) {
        super(message);
        this.property = property;
    }

    /** The property at fault. */
    public String property() {
        return property;
    }
}
