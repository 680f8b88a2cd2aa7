package dev.outbox.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** {@code worker}: down while the auto-configured worker is not running (not started yet, or stopped). */
final class WorkerHealthCheck implements OutboxHealthCheck {

    private final OutboxWorkerLifecycle lifecycle;

    WorkerHealthCheck(OutboxWorkerLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    @Override
    public String name() {
        return "worker";
    }

    @Override
    public Result check() {
        boolean running = lifecycle.isRunning();
        Map<String, @Nullable Object> details = new LinkedHashMap<>();
        details.put("running", running);
        return new Result(running, details);
    }
}
