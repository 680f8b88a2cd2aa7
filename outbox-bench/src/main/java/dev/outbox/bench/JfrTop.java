package dev.outbox.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordingFile;

/**
 * The top of a flight recording's execution samples: the methods most often on top of the stack
 * (self), the project's methods by share of samples they are under (total), and the share of samples
 * inside each library; then its longest waits ({@link #waits}), which execution samples do not show.
 */
final class JfrTop {

    static final List<String> LIBRARIES = List.of(
            "org.jooq.",
            "org.postgresql.",
            "com.rabbitmq.",
            "com.fasterxml.jackson.",
            "com.zaxxer.hikari.",
            "dev.outbox.");

    private JfrTop() {}

    static void print(String title, Path recording, int rows) throws IOException {
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> total = new HashMap<>();
        Map<String, Integer> library = new HashMap<>();
        int samples = 0;
        List<RecordedEvent> events = RecordingFile.readAllEvents(recording); // once, for the samples and the waits
        for (RecordedEvent e : events) {
            if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
                continue;
            }
            List<RecordedFrame> frames = e.getStackTrace().getFrames();
            if (frames.isEmpty()) {
                continue;
            }
            samples++;
            self.merge(name(frames.get(0).getMethod()), 1, Integer::sum);
            Set<String> methods = new HashSet<>();
            Set<String> libraries = new HashSet<>();
            for (RecordedFrame f : frames) {
                String method = name(f.getMethod());
                if (method.startsWith("dev.outbox.")) {
                    methods.add(method);
                }
                for (String lib : LIBRARIES) {
                    if (method.startsWith(lib)) {
                        libraries.add(lib);
                    }
                }
            }
            methods.forEach(m -> total.merge(m, 1, Integer::sum));
            libraries.forEach(l -> library.merge(l, 1, Integer::sum));
        }
        System.out.printf("%n%s: %d execution samples (%s)%n", title, samples, recording);
        if (samples > 0) {
            print("inside library (any frame)", library, samples, rows);
            print("under project method (total)", total, samples, rows);
            print("top frame (self)", self, samples, rows);
        }
        List<Waits> waits = waits(events);
        System.out.println(
                "  waits over the recording's threshold (10 ms in the profile settings), by thread and project method:");
        waits.stream()
                .limit(rows)
                .forEach(w -> System.out.printf(
                        "    %8.0f ms %6d × p50 %7.1f max %8.1f ms  %s %s | %s%n",
                        w.totalMillis(), w.count(), w.p50Millis(), w.maxMillis(), w.event(), w.thread(), w.method()));
    }

    /** The event types of a recording that are a thread waiting: parked, reading a socket, blocked on a monitor. */
    static final List<String> WAIT_EVENTS =
            List.of("jdk.ThreadPark", "jdk.SocketRead", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait");

    /**
     * The waits of one kind on one thread (its digits folded, so that a pool's threads count as one)
     * under one method: the innermost project method that is not a lambda's, else the top frame.
     */
    record Waits(
            String event,
            String thread,
            String method,
            int count,
            double totalMillis,
            double p50Millis,
            double maxMillis) {}

    /**
     * A relay or a worker spends most of its time waiting (for a statement, a confirm, the routing
     * thread), and a wait takes no execution samples: the {@link #WAIT_EVENTS} the recording kept (those
     * longer than its threshold), grouped as {@link Waits}, longest in total first.
     */
    static List<Waits> waits(Path recording) throws IOException {
        return waits(RecordingFile.readAllEvents(recording));
    }

    private static List<Waits> waits(List<RecordedEvent> events) {
        Map<List<String>, List<Double>> grouped = new HashMap<>();
        for (RecordedEvent e : events) {
            String type = e.getEventType().getName();
            if (!WAIT_EVENTS.contains(type) || e.getThread() == null) {
                continue;
            }
            String thread = String.valueOf(e.getThread().getJavaName()).replaceAll("[0-9]+", "#");
            grouped.computeIfAbsent(List.of(type, thread, waitingIn(e)), k -> new ArrayList<>())
                    .add(e.getDuration().toNanos() / 1e6);
        }
        List<Waits> result = new ArrayList<>();
        grouped.forEach((key, millis) -> {
            millis.sort(null);
            double total = millis.stream().mapToDouble(Double::doubleValue).sum();
            result.add(new Waits(
                    key.get(0),
                    key.get(1),
                    key.get(2),
                    millis.size(),
                    total,
                    millis.get(millis.size() / 2),
                    millis.get(millis.size() - 1)));
        });
        result.sort(Comparator.comparingDouble(Waits::totalMillis).reversed());
        return result;
    }

    private static String waitingIn(RecordedEvent e) {
        if (e.getStackTrace() == null || e.getStackTrace().getFrames().isEmpty()) {
            return "(no stack)";
        }
        List<RecordedFrame> frames = e.getStackTrace().getFrames();
        for (RecordedFrame f : frames) {
            String method = name(f.getMethod());
            if (method.startsWith("dev.outbox.") && !method.contains("lambda$") && !method.contains("$$Lambda")) {
                return method;
            }
        }
        return name(frames.get(0).getMethod());
    }

    private static void print(String what, Map<String, Integer> counts, int samples, int rows) {
        System.out.println("  " + what + ":");
        counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .limit(rows)
                .forEach(e -> System.out.printf("    %5.1f %%  %s%n", 100.0 * e.getValue() / samples, e.getKey()));
    }

    private static String name(RecordedMethod m) {
        return m.getType().getName() + "." + m.getName();
    }
}
