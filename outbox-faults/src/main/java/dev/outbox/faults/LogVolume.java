package dev.outbox.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the relays and workers logged: bytes and WARN / ERROR lines over every log file they wrote
 * ({@code relay-1.3.log}, {@code worker-2.1.log}, …).
 */
record LogVolume(long bytes, long warnLines, long errorLines) {

    private static final Pattern PROCESS_LOG = Pattern.compile("(relay|worker)-\\d+\\.\\d+\\.log");
    private static final Pattern WARN = Pattern.compile("\\bWARN(ING)?\\b");
    private static final Pattern ERROR = Pattern.compile("\\bERROR\\b");

    static LogVolume of(Path logDir) throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(logDir)) {
            files = list.filter(
                            p -> PROCESS_LOG.matcher(p.getFileName().toString()).matches())
                    .sorted()
                    .toList();
        }
        long bytes = 0;
        long warn = 0;
        long error = 0;
        for (Path f : files) {
            bytes += Files.size(f);
            try (BufferedReader r = Files.newBufferedReader(f, StandardCharsets.ISO_8859_1)) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    if (ERROR.matcher(line).find()) {
                        error++;
                    } else if (WARN.matcher(line).find()) {
                        warn++;
                    }
                }
            }
        }
        return new LogVolume(bytes, warn, error);
    }
}
