package dev.outbox.api.internal;

import java.util.Collection;
import org.jspecify.annotations.Nullable;

/**
 * What recording measures. {@link #NONE} when no meter registry was given; {@link MicrometerRecordingMeters},
 * the only class of outbox-api that names a Micrometer type, otherwise.
 */
public interface RecordingMeters {

    /** Measures nothing. */
    RecordingMeters NONE = types -> {};

    /** Events written by one statement that succeeded, by their type names (one entry per event). */
    void recorded(Collection<String> eventTypes);

    /**
     * The meters of an {@code io.micrometer.core.instrument.MeterRegistry} (typed {@code Object} so that
     * this interface loads without Micrometer), or {@link #NONE} for null.
     */
    static RecordingMeters of(@Nullable Object meterRegistry) {
        return meterRegistry == null ? NONE : MicrometerRecordingMeters.of(meterRegistry);
    }
}
