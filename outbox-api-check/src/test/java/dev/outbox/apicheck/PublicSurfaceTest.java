package dev.outbox.apicheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The public surface of the packages applications use, compared with {@code docs/api-baseline.txt}.
 * A change of the surface fails the build with the difference; a deliberate change updates the
 * baseline with {@code -Dapi.baseline.update=true} and commits it with the change (docs/api.md).
 */
class PublicSurfaceTest {

    /** The exported packages of the jars applications use (docs/api.md). */
    static final List<String> EXPORTED = List.of(
            "dev.outbox.api",
            "dev.outbox.flyway",
            "dev.outbox.relay",
            "dev.outbox.worker",
            "dev.outbox.admin",
            "dev.outbox.kotlin",
            "dev.outbox.test",
            "dev.outbox.spring");

    private static final Path BASELINE = Path.of(System.getProperty("api.baseline", "../docs/api-baseline.txt"))
            .toAbsolutePath()
            .normalize();
    private static final String UPDATE = "./mvnw -B verify -pl outbox-api-check -am -Dapi.baseline.update=true"
            + " -Dtest=PublicSurfaceTest -Dsurefire.failIfNoSpecifiedTests=false";

    @Test
    void thePublicSurfaceIsTheBaseline() throws IOException {
        String actual = PublicSurface.of(EXPORTED);
        if (Boolean.getBoolean("api.baseline.update")) {
            Files.writeString(BASELINE, actual, StandardCharsets.UTF_8);
            System.out.println("api baseline updated: " + BASELINE + " (commit it with the change)");
            return;
        }
        String expected = Files.exists(BASELINE) ? Files.readString(BASELINE, StandardCharsets.UTF_8) : "";
        if (!expected.equals(actual)) {
            fail("The public API differs from " + BASELINE + " (- in the baseline only, + in the code only):\n"
                    + diff(expected, actual)
                    + "\nIf the change is deliberate, update the baseline and commit it with the change:\n  " + UPDATE
                    + "\n(or add -Dapi.baseline.update=true to any build that runs this test); see docs/api.md.");
        }
    }

    @Test
    void seesTheMainTypesOfEachExportedPackage() {
        // the comparison above would pass vacuously over an empty surface
        String surface = PublicSurface.of(EXPORTED);
        assertThat(surface)
                .contains(
                        "public final class dev.outbox.api.Outbox",
                        "dev.outbox.flyway.OutboxTables",
                        "dev.outbox.relay.Routes",
                        "dev.outbox.worker.OutboxWorker",
                        "dev.outbox.kotlin.KotlinEventSerializer",
                        "dev.outbox.test.OutboxTestKit",
                        "dev.outbox.spring.OutboxEventListener");
        assertThat(surface).doesNotContain("dev.outbox.relay.internal", "dev.outbox.worker.internal.");
    }

    @Test
    void printsWhatWasAddedAndWhatWasRemoved() {
        assertThat(diff("package p\na\n    m()\n", "package p\na\n    m()\n    n()\n"))
                .isEqualTo("+     n()   (in a)\n");
        assertThat(diff("package p\na\n    m()\n", "package p\na\n")).isEqualTo("-     m()   (in a)\n");
    }

    /** The lines only in {@code expected} ("- ") and only in {@code actual} ("+ "), each under the type line it belongs to. */
    static String diff(String expected, String actual) {
        Set<String> before = keyed(expected);
        Set<String> after = keyed(actual);
        StringBuilder out = new StringBuilder();
        for (String line : before) {
            if (!after.contains(line)) {
                out.append("- ").append(shown(line)).append('\n');
            }
        }
        for (String line : after) {
            if (!before.contains(line)) {
                out.append("+ ").append(shown(line)).append('\n');
            }
        }
        return out.toString();
    }

    /** Each line with the type line above it (for a member), so a moved member counts as a change. */
    private static Set<String> keyed(String text) {
        Set<String> lines = new LinkedHashSet<>();
        String type = "";
        for (String line : new ArrayList<>(text.lines().toList())) {
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("    ")) {
                lines.add(type + "\u0000" + line);
            } else {
                type = line;
                lines.add(line);
            }
        }
        return lines;
    }

    private static String shown(String keyed) {
        int at = keyed.indexOf('\u0000');
        return at < 0 ? keyed : keyed.substring(at + 1) + "   (in " + keyed.substring(0, at) + ")";
    }
}
