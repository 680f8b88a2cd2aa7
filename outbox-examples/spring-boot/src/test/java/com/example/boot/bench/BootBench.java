package com.example.boot.bench;

import com.example.boot.orders.OrderPlaced;
import com.example.boot.orders.OrdersApplication;
import dev.outbox.api.Outbox;
import dev.outbox.testing.TestPostgres;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two measurements of the starter, each against its reference in the same run, alternated:
 *
 * <ul>
 *   <li>{@code startup}: the sample application (starter, worker connected) against the same
 *       application without the outbox ({@link PlainApplication}), each started in a JVM of its own:
 *       time from JVM start to the context being ready, and the resident set size then;</li>
 *   <li>{@code record}: R1, four threads each recording one event per transaction, through a
 *       {@code @Transactional} bean (Boot's DSLContext, Spring's transaction manager) against plain
 *       jOOQ {@code transaction {}} on a DSLContext of the same pool.</li>
 * </ul>
 *
 * <pre>./mvnw -B -q -pl outbox-examples/spring-boot test-compile exec:exec -Dexec.classpathScope=test -Dexec.executable=java \
 *     -Dexec.args="-cp %classpath com.example.boot.bench.BootBench startup 5"    # or "... record 3 10"</pre>
 *
 * (exec:exec, not exec:java: the startup runs spawn JVMs on this JVM's own class path.)
 *
 * Uses the database of the tests (TestPostgres: OUTBOX_TEST_JDBC_URL, else 127.0.0.1:5432) and
 * the broker at 127.0.0.1:5672, each in a schema and queue of its own, dropped at the end.
 */
public final class BootBench {

    static final String PLAIN_EXCLUDES = "dev.outbox.spring.boot.autoconfigure.OutboxAutoConfiguration,"
            + "dev.outbox.spring.boot.autoconfigure.OutboxHealthAutoConfiguration,"
            + "dev.outbox.spring.boot.autoconfigure.OutboxEndpointAutoConfiguration";

    public static void main(String[] args) throws Exception {
        String what = args.length > 0 ? args[0] : "";
        switch (what) {
            case "startup" -> startup(args.length > 1 ? Integer.parseInt(args[1]) : 5);
            case "record" ->
                record(
                        args.length > 1 ? Integer.parseInt(args[1]) : 3,
                        args.length > 2 ? Integer.parseInt(args[2]) : 10);
            case "start-once" -> startOnce(args[1], args[2]);
            default ->
                throw new IllegalArgumentException(
                        "first argument: startup [runs] | record [rounds] [seconds], not '" + what + "'");
        }
    }

    private static List<String> properties(String schema, boolean outbox) {
        TestPostgres pg = TestPostgres.get();
        List<String> p = new ArrayList<>(List.of(
                "spring.datasource.url=" + pg.jdbcUrl() + (pg.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema="
                        + schema,
                "spring.datasource.username=" + pg.user(),
                "spring.datasource.password=" + pg.password(),
                "spring.flyway.default-schema=" + schema,
                "spring.flyway.schemas=" + schema,
                "spring.main.banner-mode=off",
                "logging.level.root=warn",
                "orders.confirmations-queue=boot-bench-" + schema));
        if (outbox) {
            p.add("outbox.schema=" + schema);
        } else {
            p.add("spring.autoconfigure.exclude=" + PLAIN_EXCLUDES);
        }
        return p;
    }

    private static void dropSchema(String schema) throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            c.createStatement().execute("drop schema if exists " + schema + " cascade");
        }
    }

    // ---------------------------------------------------------------- startup and RSS

    /** In a JVM of its own: start the variant, print "READY <ms since JVM start> <VmRSS kB>", close. */
    private static void startOnce(String variant, String schema) throws Exception {
        boolean outbox = variant.equals("starter");
        Class<?> app = outbox ? OrdersApplication.class : PlainApplication.class;
        ConfigurableApplicationContext context = new SpringApplicationBuilder(app)
                .web(WebApplicationType.NONE)
                .properties(properties(schema, outbox).toArray(String[]::new))
                .run();
        long ms = System.currentTimeMillis()
                - ManagementFactory.getRuntimeMXBean().getStartTime();
        long rss = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("VmRSS:"))
                .map(l -> Long.parseLong(l.replaceAll("\\D", "")))
                .findFirst()
                .orElse(-1L);
        System.out.println("READY " + ms + " " + rss);
        context.close();
    }

    private static long[] spawn(String variant, String schema) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(
                        java,
                        "-Xmx512m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        BootBench.class.getName(),
                        "start-once",
                        variant,
                        schema)
                .redirectErrorStream(true)
                .start();
        long[] result = null;
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                out.append(line).append('\n');
                if (line.startsWith("READY ")) {
                    String[] f = line.split(" ");
                    result = new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])};
                }
            }
        }
        if (p.waitFor() != 0 || result == null) {
            throw new IllegalStateException(variant + " did not start:\n" + out);
        }
        return result;
    }

    private static void startup(int runs) throws Exception {
        String[] variants = {"plain", "starter"};
        String suffix = Long.toString(ProcessHandle.current().pid());
        List<List<long[]>> results = List.of(new ArrayList<>(), new ArrayList<>());
        try {
            for (String v : variants) {
                spawn(v, "boot_bench_" + v + "_" + suffix); // warm-up: migrates the schema, fills the OS cache
            }
            for (int run = 0; run < runs; run++) {
                for (int i = 0; i < 2; i++) {
                    int v = (run % 2 == 0) ? i : 1 - i; // alternate which goes first
                    long[] r = spawn(variants[v], "boot_bench_" + variants[v] + "_" + suffix);
                    results.get(v).add(r);
                    System.out.printf("run %d %-7s startup %5d ms  RSS %7d kB%n", run + 1, variants[v], r[0], r[1]);
                }
            }
        } finally {
            for (String v : variants) {
                dropSchema("boot_bench_" + v + "_" + suffix);
            }
        }
        long plainMs = median(results.get(0), 0), starterMs = median(results.get(1), 0);
        long plainRss = median(results.get(0), 1), starterRss = median(results.get(1), 1);
        System.out.printf(
                "median of %d: plain %d ms %d kB; starter %d ms %d kB; starter/plain: startup %.2f x (+%d ms), RSS %.2f x (+%d MB)%n",
                runs,
                plainMs,
                plainRss,
                starterMs,
                starterRss,
                (double) starterMs / plainMs,
                starterMs - plainMs,
                (double) starterRss / plainRss,
                (starterRss - plainRss) / 1024);
    }

    private static long median(List<long[]> rows, int column) {
        List<Long> values = new ArrayList<>();
        rows.forEach(r -> values.add(r[column]));
        Collections.sort(values);
        return values.get(values.size() / 2);
    }

    // ---------------------------------------------------------------- recording throughput (R1)

    private interface Recording {
        void one(OrderPlaced event) throws Exception;
    }

    private static void record(int rounds, int seconds) throws Exception {
        String schema = "boot_bench_r1_" + ProcessHandle.current().pid();
        List<String> props = new ArrayList<>(properties(schema, true));
        props.add("outbox.worker.enabled=false");
        ConfigurableApplicationContext context = new SpringApplicationBuilder(OrdersApplication.class)
                .web(WebApplicationType.NONE)
                .properties(props.toArray(String[]::new))
                .initializers(c -> ((org.springframework.context.support.GenericApplicationContext) c)
                        .registerBean(BenchRecorder.class))
                .run();
        try {
            BenchRecorder spring = context.getBean(BenchRecorder.class);
            Outbox outbox = context.getBean(Outbox.class);
            // plain jOOQ on the same Hikari pool: jOOQ's own transaction provider, no Spring in the way
            org.jooq.DSLContext plain = DSL.using(context.getBean(DataSource.class), SQLDialect.POSTGRES);
            Recording viaSpring = spring::record;
            Recording viaJooq = event -> plain.transaction(tx -> outbox.record(tx.dsl(), event));
            measure("warm-up @Transactional", viaSpring, 3);
            measure("warm-up jOOQ transaction", viaJooq, 3);
            List<Double> springRates = new ArrayList<>(), jooqRates = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                boolean springFirst = round % 2 == 0;
                for (int i = 0; i < 2; i++) {
                    boolean isSpring = springFirst == (i == 0);
                    double rate = measure(
                            isSpring ? "@Transactional" : "jOOQ transaction {}",
                            isSpring ? viaSpring : viaJooq,
                            seconds);
                    (isSpring ? springRates : jooqRates).add(rate);
                }
            }
            Collections.sort(springRates);
            Collections.sort(jooqRates);
            double s = springRates.get(rounds / 2), j = jooqRates.get(rounds / 2);
            System.out.printf(
                    "median of %d rounds of %d s, 4 threads: @Transactional %.0f events/s, jOOQ transaction {} %.0f events/s: %.2f x%n",
                    rounds, seconds, s, j, s / j);
        } finally {
            context.close();
            dropSchema(schema);
        }
    }

    private static double measure(String name, Recording recording, int seconds) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder done = new LongAdder();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 4; t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                long n = 0;
                try {
                    while (!stop.get()) {
                        recording.one(new OrderPlaced("bench-" + thread + "-" + n++, "bench@example.com"));
                        done.increment();
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            worker.start();
            threads.add(worker);
        }
        long start = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException(name + " failed", errors.get(0));
        }
        double rate = done.sum() / ((System.nanoTime() - start) / 1e9);
        System.out.printf("%-26s %8.0f events/s%n", name, rate);
        return rate;
    }
}
