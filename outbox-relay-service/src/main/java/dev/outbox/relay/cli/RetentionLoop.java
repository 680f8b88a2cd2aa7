package dev.outbox.relay.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.admin.PurgeResult;
import dev.outbox.admin.Retention;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention beside {@code relay --loop}: one purge when the loop starts, then one per interval after
 * the previous one ended, on a thread and a two-connection pool of its own (a purge never waits for
 * or holds the relay's connections). Among relays on the same tables only one purges at a time: the
 * others find the advisory lock taken and skip that round. A failed round is logged in one line and
 * tried again after the interval.
 */
final class RetentionLoop implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RetentionLoop.class);

    private final HikariDataSource dataSource;
    private final ScheduledExecutorService scheduler;
    private final AtomicInteger rounds = new AtomicInteger();

    private RetentionLoop(HikariDataSource dataSource, OutboxAdmin admin, Retention retention, Duration interval) {
        this.dataSource = dataSource;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "outbox-retention");
            t.setDaemon(true);
            return t;
        });
        // runs until close; round catches and logs its own failures
        var unused = scheduler.scheduleWithFixedDelay(
                () -> round(admin, retention), 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    static RetentionLoop start(ServiceSettings s, Retention retention, Duration interval) {
        HikariDataSource dataSource = RelayCommand.pool(s, s.jdbcUrl(), "outbox-retention", 2, false, true);
        log.info(
                "retention every {}: completed after {}, failed after {}, unrouted after {}, batches of {}",
                interval,
                shown(retention.completed()),
                shown(retention.failed()),
                shown(retention.unrouted()),
                retention.batchSize());
        return new RetentionLoop(dataSource, OutboxAdmin.of(dataSource, s.tables()), retention, interval);
    }

    private static String shown(@Nullable Duration d) {
        return d == null ? "never" : d.toString();
    }

    private void round(OutboxAdmin admin, Retention retention) {
        try {
            Optional<PurgeResult> result = admin.purgeExclusively(retention);
            rounds.incrementAndGet();
            if (result.isEmpty()) {
                log.info("retention round skipped: another relay is purging these tables");
            }
        } catch (RuntimeException e) {
            log.warn("retention round failed ({}); next round after the interval", RelayCommand.describe(e));
        }
    }

    /** Rounds run so far (skipped ones included), for tests. */
    int rounds() {
        return rounds.get();
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        dataSource.close();
    }
}
