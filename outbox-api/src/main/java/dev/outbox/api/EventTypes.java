package dev.outbox.api;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Maps event classes to their stable type names and back. A class's name comes from this registry
 * first, then from its {@link EventType} annotation; a class with neither is refused, because a Java
 * class name does not survive a rename.
 *
 * <pre>{@code
 * EventTypes types = EventTypes.builder()
 *     .register("order.placed", OrderPlaced.class)
 *     .build();
 * }</pre>
 */
public final class EventTypes {

    private static final EventTypes ANNOTATIONS_ONLY = new EventTypes(Map.of());

    private final Map<Class<?>, String> names;
    private final Map<String, Class<?>> classes;
    private final Map<Class<?>, String> annotated = new ConcurrentHashMap<>();

    private EventTypes(Map<Class<?>, String> names) {
        this.names = Map.copyOf(names);
        Map<String, Class<?>> byName = new LinkedHashMap<>();
        names.forEach((type, name) -> byName.put(name, type));
        this.classes = Map.copyOf(byName);
    }

    /** A registry that reads {@link EventType} annotations only. */
    public static EventTypes annotated() {
        return ANNOTATIONS_ONLY;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The stable name of {@code type}.
     *
     * @throws OutboxException when the class is neither registered nor annotated
     */
    public String nameOf(Class<?> type) {
        String name = names.get(type);
        if (name != null) {
            return name;
        }
        return annotated.computeIfAbsent(type, EventTypes::annotationName);
    }

    /** The class registered under {@code name}, when there is one. */
    public Optional<Class<?>> classOf(String name) {
        return Optional.ofNullable(classes.get(name));
    }

    private static String annotationName(Class<?> type) {
        EventType annotation = type.getAnnotation(EventType.class);
        if (annotation == null) {
            throw new OutboxException(
                    "event class " + type.getName() + " has no stable type name: annotate it with @EventType(\"...\")"
                            + " or register it in EventTypes");
        }
        return checkName(annotation.value(), "@EventType on " + type.getName());
    }

    static String checkName(@Nullable String name, String where) {
        if (name == null || !Names.isStableName(name)) {
            throw new OutboxException(where + ": event type must match " + Names.STABLE_NAME.pattern() + ", got '"
                    + LogText.of(name) + "'");
        }
        return name;
    }

    /** Collects class-to-name registrations; {@link #build()} refuses duplicates and bad names. */
    public static final class Builder {
        private final Map<Class<?>, String> names = new LinkedHashMap<>();

        private Builder() {}

        public Builder register(String name, Class<?> type) {
            checkName(name, "EventTypes.register(" + type.getName() + ")");
            String previous = names.putIfAbsent(type, name);
            if (previous != null && !previous.equals(name)) {
                throw new OutboxException("EventTypes: " + type.getName() + " is registered twice, as '"
                        + LogText.of(previous) + "' and '" + LogText.of(name) + "'");
            }
            for (Map.Entry<Class<?>, String> e : names.entrySet()) {
                if (e.getValue().equals(name) && e.getKey() != type) {
                    throw new OutboxException("EventTypes: '" + LogText.of(name) + "' is registered for both "
                            + e.getKey().getName() + " and " + type.getName());
                }
            }
            return this;
        }

        public EventTypes build() {
            return new EventTypes(names);
        }
    }
}
