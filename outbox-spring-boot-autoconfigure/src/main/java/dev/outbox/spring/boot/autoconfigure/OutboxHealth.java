package dev.outbox.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The actuator's {@code outbox} health, without Boot's health types: the {@link OutboxHealthCheck} parts
 * of the context, each shown under its name with its status ({@code UP} or {@code DOWN}) and details; up
 * only when every part is up. A part that throws is down and shows the exception's class and message.
 * Each line's health indicator maps the result to Boot's {@code Health}, down to {@code DOWN}.
 */
public final class OutboxHealth {

    private final List<OutboxHealthCheck> checks;

    /**
     * @throws IllegalArgumentException when two checks have one name
     */
    public OutboxHealth(List<OutboxHealthCheck> checks) {
        this.checks = List.copyOf(checks);
        Map<String, OutboxHealthCheck> byName = new LinkedHashMap<>();
        for (OutboxHealthCheck check : this.checks) {
            OutboxHealthCheck other =
                    byName.putIfAbsent(Objects.requireNonNull(check.name(), "OutboxHealthCheck.name"), check);
            if (other != null) {
                throw new IllegalArgumentException("two outbox health checks are named '" + check.name() + "': "
                        + other.getClass().getName() + " and "
                        + check.getClass().getName());
            }
        }
    }

    /** Runs every check, in order. */
    public OutboxHealthCheck.Result check() {
        boolean up = true;
        Map<String, @Nullable Object> details = new LinkedHashMap<>();
        for (OutboxHealthCheck check : checks) {
            OutboxHealthCheck.Result result;
            try {
                result = check.check();
            } catch (RuntimeException e) {
                Map<String, @Nullable Object> error = new LinkedHashMap<>();
                error.put("error", e.getClass().getName() + ": " + e.getMessage());
                result = new OutboxHealthCheck.Result(false, error);
            }
            Map<String, @Nullable Object> part = new LinkedHashMap<>();
            part.put("status", result.up() ? "UP" : "DOWN");
            part.putAll(result.details());
            details.put(check.name(), part);
            up &= result.up();
        }
        return new OutboxHealthCheck.Result(up, details);
    }
}
