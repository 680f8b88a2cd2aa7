package dev.outbox.relay.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.outbox.api.LogText;
import dev.outbox.relay.RelayLoggers;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP endpoint of {@code relay --loop} when {@code OUTBOX_HTTP_PORT} is set (JDK's own HTTP
 * server): {@code /metrics} (Prometheus text), {@code /health/live} (the loop makes progress) and
 * {@code /health/ready} (the database and the broker answer); no other path (404). Closed after the
 * relay on SIGTERM.
 *
 * <p>So that a client that never finishes its request cannot hold the handler threads, each request
 * must arrive whole within {@link #REQUEST_DEADLINE} ({@code sun.net.httpserver.maxReqTime}, unless
 * the JVM sets it), and there are {@value #HANDLERS} handler threads.
 */
final class HttpEndpoint implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RelayLoggers.SERVICE);
    /** What counts as the loop's progress: passes end (also failed ones) and batches are routed, dispatched, timed out. */
    private static final List<String> PROGRESS = List.of(
            "outbox.relay.pass",
            "outbox.relay.events.routed",
            "outbox.relay.deliveries.dispatched",
            "outbox.relay.deliveries.timed.out");

    /** How long a client has to send its whole request line and headers. */
    static final Duration REQUEST_DEADLINE = Duration.ofSeconds(5);
    /** Handler threads; idle ones end after a while. */
    static final int HANDLERS = 16;

    static {
        // read once, when the JDK's server class is first used: before any HttpServer of this JVM is made
        System.getProperties()
                .putIfAbsent("sun.net.httpserver.maxReqTime", Long.toString(REQUEST_DEADLINE.toSeconds()));
    }

    /**
     * Label values as {@link LogText} prints them: a queue name read from the tables (another program
     * may have written it) cannot put an ESC or another control character on the page a scraper or a
     * person reads. Prometheus' own escaping covers only quotes, backslashes and newlines.
     */
    private static final MeterFilter ESCAPED_TAGS = new MeterFilter() {
        @Override
        public Meter.Id map(Meter.Id id) {
            List<Tag> tags = id.getTags();
            if (tags.stream().allMatch(t -> LogText.of(t.getValue()).equals(t.getValue()))) {
                return id;
            }
            return id.replaceTags(tags.stream()
                    .map(t -> Tag.of(t.getKey(), LogText.of(t.getValue())))
                    .toList());
        }
    };

    /** One dependency's check: returns when it answers, throws when it does not. */
    @FunctionalInterface
    interface Probe {
        void check() throws Exception;
    }

    private final PrometheusMeterRegistry registry;
    private final JvmGcMetrics gc;
    private final HttpServer server;
    private final ExecutorService handlers;
    private final ScheduledExecutorService watch;
    private final Duration liveWindow;
    private final Probe database;
    private final Probe broker;
    private volatile double progress = -1;
    private volatile long progressAt = System.nanoTime();

    private HttpEndpoint(InetAddress host, int port, Duration liveWindow, Probe database, Probe broker) {
        this.liveWindow = liveWindow;
        this.database = database;
        this.broker = broker;
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().meterFilter(ESCAPED_TAGS);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        this.gc = new JvmGcMetrics();
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        try {
            this.server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            gc.close();
            throw new ConfigException(
                    ServiceSettings.HTTP_PORT,
                    "cannot listen on " + host.getHostAddress() + ":" + port + " ("
                            + e.getClass().getSimpleName() + "; is the port in use? check " + ServiceSettings.HTTP_PORT
                            + " and "
                            + ServiceSettings.HTTP_HOST + ")");
        }
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                HANDLERS, HANDLERS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), daemon("outbox-http"));
        pool.allowCoreThreadTimeOut(true);
        this.handlers = pool;
        this.watch = Executors.newSingleThreadScheduledExecutor(daemon("outbox-http-watch"));
        server.setExecutor(handlers);
        Map<String, HttpHandler> paths = Map.of(
                "/metrics",
                        exchange ->
                                respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()),
                "/health/live", this::live,
                "/health/ready", this::ready);
        // a context matches every path it prefixes: one for all, and only the exact paths answer
        server.createContext("/", exchange -> {
            HttpHandler handler = paths.get(exchange.getRequestURI().getRawPath());
            if (handler == null) {
                respond(exchange, 404, "text/plain; charset=utf-8", "not found\n");
            } else {
                handler.handle(exchange);
            }
        });
        // runs until close; if sampling ever stopped, /live would report the relay stalled
        var unused = watch.scheduleWithFixedDelay(this::sample, 0, 1, TimeUnit.SECONDS);
        server.start();
        log.info(
                "HTTP endpoint on http://{}:{} (/metrics, /health/live, /health/ready)",
                hostText(host),
                server.getAddress().getPort());
    }

    /**
     * Listens on {@code host:port}. {@code /health/live} answers 503 when the loop has made no progress
     * for {@code liveWindow}; {@code /health/ready} answers 503 naming what of {@code database} and
     * {@code broker} does not answer.
     */
    static HttpEndpoint open(InetAddress host, int port, Duration liveWindow, Probe database, Probe broker) {
        return new HttpEndpoint(host, port, liveWindow, database, broker);
    }

    /** The port it listens on (the one asked for, or the one the system chose for 0). */
    int port() {
        return server.getAddress().getPort();
    }

    /** The registry to give the relay. */
    MeterRegistry registry() {
        return registry;
    }

    private void sample() {
        double now = 0;
        for (String name : PROGRESS) {
            now += registry.find(name).meters().stream()
                    .mapToDouble(m -> m instanceof io.micrometer.core.instrument.Timer t
                            ? t.count()
                            : m instanceof io.micrometer.core.instrument.Counter c ? c.count() : 0)
                    .sum();
        }
        if (now != progress) {
            progress = now;
            progressAt = System.nanoTime();
        }
    }

    private void live(HttpExchange exchange) throws IOException {
        long quietSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - progressAt);
        boolean live = quietSeconds <= liveWindow.toSeconds();
        respond(
                exchange,
                live ? 200 : 503,
                "application/json",
                "{\"status\":\"" + (live ? "live" : "stalled") + "\",\"secondsSinceProgress\":" + quietSeconds
                        + ",\"limitSeconds\":" + liveWindow.toSeconds() + "}\n");
    }

    private void ready(HttpExchange exchange) throws IOException {
        String db = probe("database", database);
        String amqp = probe("broker", broker);
        boolean ready = db == null && amqp == null;
        respond(
                exchange,
                ready ? 200 : 503,
                "application/json",
                "{\"status\":\"" + (ready ? "ready" : "not ready") + "\",\"database\":\""
                        + (db == null ? "up" : "down: " + db) + "\",\"broker\":\""
                        + (amqp == null ? "up" : "down: " + amqp) + "\"}\n");
    }

    /** Null when {@code probe} answers, else the class of what it threw (never its message: it may hold a host or a secret). */
    private static @Nullable String probe(String what, Probe probe) {
        try {
            probe.check();
            return null;
        } catch (Exception e) {
            log.debug(
                    "readiness: the {} does not answer ({})", what, e.getClass().getSimpleName());
            return e.getClass().getSimpleName();
        }
    }

    private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.getResponseHeaders().set("Cache-Control", "no-store");
            if ("HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    private static String hostText(InetAddress host) {
        String a = host.getHostAddress();
        return a.contains(":") ? "[" + a + "]" : a;
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Gives the requests in flight up to a second to finish, then closes. Not {@code server.stop(1)}: on
     * JDK 17 it waits the whole second even when nothing is in flight (JDK-8304065, fixed in 21).
     */
    @Override
    public void close() {
        handlers.shutdown(); // the requests in flight finish; a new one is refused
        try {
            handlers.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.stop(0);
        watch.shutdownNow();
        handlers.shutdownNow();
        gc.close();
        registry.close();
        log.info("HTTP endpoint closed");
    }
}
