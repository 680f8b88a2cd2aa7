package dev.outbox.relay.internal;

import dev.outbox.delivery.internal.Claimed;
import dev.outbox.delivery.internal.FailureReason;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * One dispatch on its way to the broker: settled with no failure when the broker confirmed it
 * (and did not return it), or with a safe code saying why not.
 */
final class Published {

    static final String NACK = "nack";
    static final String RETURNED = "returned";
    static final String CONFIRM_TIMEOUT = "confirm_timeout";
    static final String CONNECTION_LOST = "connection_lost";
    /** Never handed to the broker: the connection was lost first. Released without counting the attempt. */
    static final String NOT_SENT = "not_sent";

    static final String PUBLISH_ERROR = "publish_error";
    static final String NO_EXCHANGE = "no_exchange";
    static final String QUEUE_DECLARE_FAILED = FailureReason.QUEUE_DECLARE_FAILED.code();
    static final String NO_WINDOW = "no_window";

    private static final String OK = "ok";

    private final Claimed dispatch;
    private final CompletableFuture<String> result = new CompletableFuture<>();
    private volatile boolean returned;
    private long seq = -1;
    private volatile long sentNanos = -1;
    private volatile long settledNanos = -1;
    private @Nullable Confirms confirms;

    Published(Claimed dispatch) {
        this.dispatch = dispatch;
    }

    static Published failed(Claimed dispatch, String cause) {
        Published p = new Published(dispatch);
        p.settle(cause);
        return p;
    }

    Claimed dispatch() {
        return dispatch;
    }

    long seq() {
        return seq;
    }

    /** Records the channel's tracker and the sequence number this message was published with. */
    void trackedBy(Confirms confirms, long seq) {
        this.confirms = confirms;
        this.seq = seq;
        this.sentNanos = System.nanoTime();
    }

    /** Gives up waiting for the confirm: settles as {@link #CONFIRM_TIMEOUT}, a late confirm finds nothing. */
    void abandon() {
        if (confirms != null) {
            confirms.abandon(seq);
        }
        settle(CONFIRM_TIMEOUT);
    }

    void markReturned() {
        returned = true;
    }

    /** Settles with {@code failure}, or as confirmed when null (a returned message stays a failure). */
    void settle(@Nullable String failure) {
        if (settledNanos < 0) {
            settledNanos = System.nanoTime();
        }
        result.complete(failure != null ? failure : returned ? RETURNED : OK);
    }

    /** From the publish to the settlement, in nanoseconds; negative when never published or not yet settled. */
    long latencyNanos() {
        long sent = sentNanos;
        long settled = settledNanos;
        return sent < 0 || settled < 0 ? -1 : Math.max(0, settled - sent);
    }

    /** Waits up to {@code millis}; the failure code, null when confirmed, or empty-handed on timeout. */
    @Nullable
    String await(long millis) throws InterruptedException, TimeoutException {
        try {
            String r = result.get(Math.max(0, millis), TimeUnit.MILLISECONDS);
            return OK.equals(r) ? null : r;
        } catch (ExecutionException e) {
            return PUBLISH_ERROR;
        }
    }
}
