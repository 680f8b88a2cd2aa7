package dev.outbox.api.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@code outbox.events.recorded} (counter, tag {@code type}) in a Micrometer registry; loaded only when one was given. */
final class MicrometerRecordingMeters implements RecordingMeters {

    static final String RECORDED = "outbox.events.recorded";

    private final MeterRegistry registry;
    private final Map<String, Counter> byType = new ConcurrentHashMap<>();

    private MicrometerRecordingMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    static RecordingMeters of(Object registry) {
        return new MicrometerRecordingMeters((MeterRegistry) registry);
    }

    @Override
    public void recorded(Collection<String> eventTypes) {
        for (String type : eventTypes) {
            byType.computeIfAbsent(
                            type,
                            t -> Counter.builder(RECORDED)
                                    .tag("type", t)
                                    .description(
                                            "events written by a recording statement that succeeded (not yet committed)")
                                    .register(registry))
                    .increment();
        }
    }
}
