package dev.outbox.worker;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Captures what slf4j-simple writes (to {@code System.err}, looked up at each write) while open, and
 * still passes it on. Lines are matched by content, so tests running alongside do not disturb it.
 */
final class LogCapture implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    LogCapture() {
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                    captured.write(b, off, len);
                }
                original.write(b, off, len);
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    List<String> lines() {
        synchronized (captured) {
            return Arrays.asList(captured.toString(StandardCharsets.UTF_8).split("\n"));
        }
    }

    /** Lines at {@code level} (e.g. WARN, ERROR) that contain every one of {@code parts}. */
    List<String> lines(String level, Object... parts) {
        return lines().stream()
                .filter(l -> l.contains(" " + level + " "))
                .filter(l -> Arrays.stream(parts).allMatch(p -> l.contains(String.valueOf(p))))
                .toList();
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
