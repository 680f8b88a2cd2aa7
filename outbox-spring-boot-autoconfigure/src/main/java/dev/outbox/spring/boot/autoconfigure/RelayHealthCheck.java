package dev.outbox.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code relay}: down while the embedded relay does not run (not started yet, or stopped), and once its
 * loop ended on its own, with the relay's one-line reason (a database that fails for good). An outage
 * the loop rides out is not a failure here; the {@code backlog} part shows its effect.
 */
final class RelayHealthCheck implements OutboxHealthCheck {

    private final OutboxRelayLifecycle lifecycle;

    RelayHealthCheck(OutboxRelayLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @Override
    public String name() {
        return "relay";
    }

    @Override
    public Result check() {
        RuntimeException failure = lifecycle.failure().orElse(null);
        boolean running = lifecycle.isRunning() && failure == null;
        Map<String, @Nullable Object> details = new LinkedHashMap<>();
        details.put("running", running);
        if (failure != null) {
            details.put("error", failure.getMessage());
        }
        return new Result(running, details);
    }
}
