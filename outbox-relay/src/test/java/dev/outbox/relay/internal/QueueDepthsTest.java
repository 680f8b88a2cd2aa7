package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.delivery.RouteKind;
import dev.outbox.delivery.internal.Claimed;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class QueueDepthsTest {

    final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    final Map<String, Long> broker = new HashMap<>();
    final List<String> reads = new ArrayList<>();
    final List<String> events = new ArrayList<>();
    final QueueDepths.Reader reader = queue -> {
        reads.add(queue);
        Long depth = broker.get(queue);
        return depth == null ? OptionalLong.empty() : OptionalLong.of(depth);
    };
    final QueueDepths.Listener listener = new QueueDepths.Listener() {
        @Override
        public void held(String queue, long depth, int maxDepth) {
            events.add("held " + queue + " " + depth + "/" + maxDepth);
        }

        @Override
        public void released(String queue, long depth, long heldNanos) {
            events.add("released " + queue + " " + depth);
        }
    };

    QueueDepths depths(int max) {
        return new QueueDepths(max, Set.of("emails", "sms"), nanos::get, listener);
    }

    @Test
    void holdsAQueueWhoseReadyMessagesReachTheBoundAndLetsTheOthersGo() {
        broker.put("emails", 100L);
        broker.put("sms", 99L);
        QueueDepths d = depths(100);

        assertThat(d.refresh(reader)).containsExactly("emails");
        assertThat(events).containsExactly("held emails 100/100");
    }

    @Test
    void countsWhatItPublishedSinceTheLastReading() {
        broker.put("emails", 90L);
        broker.put("sms", 0L);
        QueueDepths d = depths(100);
        assertThat(d.refresh(reader)).isEmpty();

        d.published(claimed("emails", 10));
        d.published(List.of(publish("sms"))); // a publish route's delivery counts for no job queue

        assertThat(d.depth("emails")).isEqualTo(100);
        assertThat(d.depth("sms")).isZero();
        assertThat(d.held()).containsExactly("emails");
    }

    @Test
    void readsAgainOnlyWhenTheReadingIsOldOrTheQueueLooksFull() {
        broker.put("emails", 5L);
        broker.put("sms", 100L);
        QueueDepths d = depths(100);
        d.refresh(reader);
        reads.clear();

        nanos.addAndGet(QueueDepths.RECHECK_NANOS);
        d.refresh(reader);
        assertThat(reads)
                .as("only the full queue is read again after the recheck interval")
                .containsExactly("sms");

        reads.clear();
        nanos.addAndGet(QueueDepths.REFRESH_NANOS);
        d.refresh(reader);
        assertThat(reads).containsExactlyInAnyOrder("emails", "sms");
    }

    @Test
    void letsAHeldQueueGoOnceItsConsumersHaveTakenEnough() {
        broker.put("emails", 150L);
        broker.put("sms", 0L);
        QueueDepths d = depths(100);
        assertThat(d.refresh(reader)).containsExactly("emails");

        broker.put("emails", 99L);
        nanos.addAndGet(QueueDepths.RECHECK_NANOS);

        assertThat(d.refresh(reader)).isEmpty();
        assertThat(events).containsExactly("held emails 150/100", "released emails 99");
    }

    @Test
    void aQueueWhoseDepthCannotBeReadCountsAsEmpty() {
        broker.put("sms", 0L); // emails: no answer
        assertThat(depths(1).refresh(reader)).isEmpty();
    }

    @Test
    void noBoundReadsNothingAndHoldsNothing() {
        broker.put("emails", 1_000_000L);
        QueueDepths d = depths(0);

        assertThat(d.refresh(reader)).isEmpty();
        d.published(claimed("emails", 5));
        assertThat(d.held()).isEmpty();
        assertThat(reads).isEmpty();
    }

    @Test
    void aReadingTakenWhilePublishesAwaitTheirConfirmsCountsThemOnTop() {
        broker.put("emails", 0L);
        broker.put("sms", 0L);
        QueueDepths d = depths(20);
        d.refresh(reader);
        List<Claimed> inFlight = claimed("emails", 15);
        d.published(inFlight); // sent, confirms outstanding: the broker's count may not hold them yet

        nanos.addAndGet(QueueDepths.REFRESH_NANOS);
        broker.put("emails", 0L); // the broker has not counted them
        d.refresh(reader);
        assertThat(d.depth("emails"))
                .as("the reading plus the unconfirmed publishes")
                .isEqualTo(15);

        d.settled(inFlight);
        nanos.addAndGet(QueueDepths.REFRESH_NANOS);
        broker.put("emails", 15L); // confirmed: now in the broker's count, and counted once
        d.refresh(reader);
        assertThat(d.depth("emails")).isEqualTo(15);
    }

    private static List<Claimed> claimed(String queue, int n) {
        List<Claimed> result = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            result.add(new Claimed(
                    UUID.randomUUID(),
                    UUID.randomUUID(),
                    UUID.randomUUID(),
                    RouteKind.JOB,
                    "send",
                    queue,
                    null,
                    null,
                    1,
                    0,
                    30,
                    "order.placed",
                    null,
                    null,
                    null));
        }
        return result;
    }

    private static Claimed publish(String exchange) {
        return new Claimed(
                UUID.randomUUID(),
                UUID.randomUUID(),
                UUID.randomUUID(),
                RouteKind.PUBLISH,
                "publish",
                exchange,
                exchange,
                "key",
                1,
                0,
                30,
                "order.placed",
                null,
                null,
                "{}");
    }
}
