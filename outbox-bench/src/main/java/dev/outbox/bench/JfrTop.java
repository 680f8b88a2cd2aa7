package dev.outbox.bench;

import java.io.IOException;
import java.nio.file.Path;
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
 * inside each library.
 */
final class JfrTop {

    static final List<String> LIBRARIES = List.of("org.jooq.", "org.postgresql.", "com.rabbitmq.", "com.fasterxml.jackson.",
            "com.zaxxer.hikari.", "dev.outbox.");

    private JfrTop() {}

    static void print(String title, Path recording, int rows) throws IOException {
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> total = new HashMap<>();
        Map<String, Integer> library = new HashMap<>();
        int samples = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
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
        if (samples == 0) {
            return;
        }
        print("inside library (any frame)", library, samples, rows);
        print("under project method (total)", total, samples, rows);
        print("top frame (self)", self, samples, rows);
    }

    private static void print(String what, Map<String, Integer> counts, int samples, int rows) {
        System.out.println("  " + what + ":");
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(rows)
                .forEach(e -> System.out.printf("    %5.1f %%  %s%n", 100.0 * e.getValue() / samples, e.getKey()));
    }

    private static String name(RecordedMethod m) {
        return m.getType().getName() + "." + m.getName();
    }
}
