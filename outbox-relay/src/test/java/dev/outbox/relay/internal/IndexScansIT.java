package dev.outbox.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.delivery.internal.RelayTransitions;
import dev.outbox.relay.Events.OrderPlaced;
import dev.outbox.relay.RetrySchedule;
import dev.outbox.relay.Route;
import dev.outbox.relay.Routes;
import dev.outbox.relay.Tables;
import dev.outbox.testing.Intercept;
import dev.outbox.testing.MutableClock;
import dev.outbox.testing.PostgresSchemaExtension;
import java.math.BigDecimal;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * T1, T2 and T4 read their partial indexes with plain index scans, which mark the dead entries they
 * meet, never with bitmap scans, which read the table page of every dead entry on every pass, or
 * sequential scans; the settings end with their transaction.
 */
class IndexScansIT {

    @RegisterExtension
    static final PostgresSchemaExtension db = PostgresSchemaExtension.migrated();

    static final Routes ROUTES = Routes.builder()
            .route(
                    "order.placed",
                    Route.job("send-confirmation", "emails", RetrySchedule.seconds(5), Duration.ofSeconds(300)))
            .build();

    final MutableClock clock = MutableClock.startingNow();
    Tables tables;
    RelayTransitions transitions;

    @BeforeEach
    void clean() throws Exception {
        db.truncate();
        tables = new Tables(db);
        transitions = new RelayTransitions(db.tables(), ROUTES.toRouteTable(), clock);
    }

    /** What {@code SHOW enable_bitmapscan} and {@code enable_seqscan} say inside a transaction on one connection after {@code step}, and after its commit. */
    private List<String> bitmapScansAfter(Consumer<DSLContext> step) throws Exception {
        try (Connection connection = db.dataSource().getConnection()) {
            DSLContext ctx = DSL.using(connection, SQLDialect.POSTGRES);
            List<String> said = new ArrayList<>();
            ctx.transaction(tx -> {
                step.accept(tx.dsl());
                said.add(settings(tx.dsl()));
            });
            said.add(settings(ctx));
            return said;
        }
    }

    private static String settings(DSLContext ctx) {
        return ctx.fetchOne("show enable_bitmapscan").get(0, String.class) + " "
                + ctx.fetchOne("show enable_seqscan").get(0, String.class);
    }

    @Test
    void routeClaimAndTimeOutTurnBitmapAndSequentialScansOffForTheirTransactionOnly() throws Exception {
        tables.record(new OrderPlaced(1, BigDecimal.ONE));
        assertThat(bitmapScansAfter(tx -> {})).containsExactly("on on", "on on");
        assertThat(bitmapScansAfter(tx -> transitions.route(tx, 500, null))).containsExactly("off off", "on on");
        assertThat(bitmapScansAfter(tx -> transitions.claim(tx, 500))).containsExactly("off off", "on on");
        assertThat(bitmapScansAfter(tx -> transitions.claim(tx, 500, List.of("send-confirmation"))))
                .containsExactly("off off", "on on");
        assertThat(bitmapScansAfter(tx -> transitions.timeOut(tx, 500))).containsExactly("off off", "on on");
    }

    /** How many statements {@code step} creates on its connection, inside a transaction (each one a round trip of its own). */
    private int statementsOf(Consumer<DSLContext> step) throws Exception {
        AtomicInteger statements = new AtomicInteger();
        try (Connection real = db.dataSource().getConnection()) {
            Connection counting = Intercept.of(Connection.class, real, call -> {
                if (call.name().equals("createStatement") || call.name().startsWith("prepare")) {
                    statements.incrementAndGet();
                }
                return call.proceed();
            });
            DSL.using(counting, SQLDialect.POSTGRES).transaction(tx -> step.accept(tx.dsl()));
        }
        return statements.get();
    }

    @Test
    void theSettingsTravelWithTheFirstStatementOfEachTransitionNotInARoundTripOfTheirOwn() throws Exception {
        tables.record(new OrderPlaced(1, BigDecimal.ONE));
        assertThat(statementsOf(tx -> transitions.route(tx, 500, null)))
                .as("T1: the candidates, then the routing")
                .isEqualTo(2);
        assertThat(statementsOf(tx -> transitions.route(tx, 500, null)))
                .as("T1 with nothing to route")
                .isEqualTo(1);
        assertThat(statementsOf(tx -> transitions.claim(tx, 500))).as("T2").isEqualTo(1);
        assertThat(statementsOf(tx -> transitions.claim(tx, 500, List.of("send-confirmation"))))
                .as("T2 of job types")
                .isEqualTo(1);
        assertThat(statementsOf(tx -> transitions.timeOut(tx, 500))).as("T4").isEqualTo(1);
    }

    @Test
    void afterManyRoutedEventsTheCandidateReadIsAPlainIndexScanWhereThePlannerWouldChooseAnotherScan()
            throws Exception {
        // the statistics see 300 of 2,000 events unrouted (the planner then prefers a bitmap or sequential scan and a
        // sort);
        // then all are routed, leaving dead entries in the unrouted index, and two new ones come
        List<Object> events = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            events.add(new OrderPlaced(i, BigDecimal.ONE));
        }
        tables.recordAll(events);
        for (int i = 0; i < 17; i++) {
            tables.dsl().transaction(tx -> transitions.route(tx.dsl(), 100, null));
        }
        tables.dsl()
                .execute("analyze " + db.tables().schema() + "." + db.tables().events());
        while (tables.dsl()
                        .transactionResult(tx -> transitions.route(tx.dsl(), 500, null))
                        .events()
                > 0) {
            // route the rest
        }
        tables.recordAll(List.of(new OrderPlaced(1, BigDecimal.TEN), new OrderPlaced(2, BigDecimal.TEN)));
        String candidates = "explain select id, event_type from " + db.tables().schema() + "."
                + db.tables().events() + " where routed_at is null order by id limit 500";

        String planned = String.join("\n", tables.dsl().fetch(candidates).getValues(0, String.class));
        assertThat(planned).as("without the settings, the planner's choice").doesNotContain("Index Scan using");

        List<String> inRoute = new ArrayList<>();
        tables.dsl().transaction(tx -> {
            transitions.route(tx.dsl(), 500, null);
            inRoute.addAll(tx.dsl().fetch(candidates).getValues(0, String.class));
        });
        assertThat(String.join("\n", inRoute))
                .doesNotContain("Bitmap")
                .doesNotContain("Seq Scan")
                .contains("Index Scan using")
                .contains("unrouted_idx");
    }
}
