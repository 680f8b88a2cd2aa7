package dev.outbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The meters documented in {@code docs/observability.md}: every table row whose first cell is a
 * meter name in backticks ({@code | `outbox.relay.events.routed` | counter | type | ... |}).
 *
 * <p>Tests compare what a registry holds after real work with this list, so a meter cannot ship
 * undocumented, and a dashboard cannot chart a meter that does not exist.
 */
public final class MeterDocs {

    private static final Pattern ROW =
            Pattern.compile("^\\|\\s*`(outbox\\.[a-z0-9_.]+)`\\s*\\|\\s*([a-z ]+?)\\s*\\|\\s*([^|]*)\\|");

    private MeterDocs() {}

    /** The documented meters, name to type ("counter", "timer", "gauge", ...), in the order written. */
    public static Map<String, String> documented() {
        Path doc = file();
        Map<String, String> meters = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(doc)) {
                Matcher m = ROW.matcher(line.strip());
                if (m.find()) {
                    meters.put(m.group(1), m.group(2));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + doc, e);
        }
        return meters;
    }

    /** {@code docs/observability.md}, found from the working directory or one of its parents. */
    public static Path file() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            Path doc = dir.resolve("docs").resolve("observability.md");
            if (Files.isRegularFile(doc)) {
                return doc;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException(
                "docs/observability.md not found above " + Path.of("").toAbsolutePath());
    }
}
