package dev.outbox.spring.boot.autoconfigure;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One part of the actuator's {@code outbox} health: the auto-configuration declares {@code worker} (when
 * it runs a worker) and {@code backlog}; an application, or an embedded relay, adds a part by declaring
 * a bean of this type. The health is down when any part is down; each part's result is shown under its
 * {@link #name()}. The type names nothing of Boot's health, so the indicators of Boot 4.0 and of 3.5
 * (outbox-spring-boot3-health) read the same parts.
 */
public interface OutboxHealthCheck {

    /** The key of this part in the health's details ({@code worker}, {@code backlog}, {@code relay}); unique. */
    String name();

    /** Checks now; an exception counts as down, with the exception in the details. */
    Result check();

    /**
     * The outcome of a check.
     *
     * @param up whether the part does its work
     * @param details what it is based on, by name (values: strings, numbers, booleans, maps, or null)
     */
    record Result(boolean up, Map<String, @Nullable Object> details) {

        public Result {
            Objects.requireNonNull(details, "details");
            details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
        }
    }
}
