package dev.outbox.delivery.internal;

import dev.outbox.api.OutboxException;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** A delivery message that cannot be read; carries whichever ids could be read, for the log and for T7. */
public final class MalformedMessageException extends OutboxException {

    private static final long serialVersionUID = 1L;

    private final @Nullable UUID eventId;
    private final @Nullable UUID deliveryId;
    private final @Nullable UUID dispatchId;

    public MalformedMessageException(
            String problem, @Nullable UUID eventId, @Nullable UUID deliveryId, @Nullable UUID dispatchId) {
        super("malformed delivery message: " + problem);
        this.eventId = eventId;
        this.deliveryId = deliveryId;
        this.dispatchId = dispatchId;
    }

    public Optional<UUID> eventId() {
        return Optional.ofNullable(eventId);
    }

    public Optional<UUID> deliveryId() {
        return Optional.ofNullable(deliveryId);
    }

    public Optional<UUID> dispatchId() {
        return Optional.ofNullable(dispatchId);
    }
}
