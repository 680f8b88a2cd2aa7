package dev.outbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every Java and Kotlin snippet of the README and of docs/getting-started.md stands, line for line
 * (indentation aside), in a source file that the build compiles: neither page can drift from code
 * that works. Gradle build scripts (Kotlin DSL, a block introduced by a line naming a
 * {@code .gradle.kts} file) are not compiled by this build; {@code docs/getting-started-check.sh}
 * writes them out of docs/getting-started.md.
 */
class ReadmeSnippetsTest {

    private static final Pattern BLOCK = Pattern.compile("([^\\n]*)\\n\\n?```(java|kotlin)\\n(.*?)```", Pattern.DOTALL);

    @ParameterizedTest
    @CsvSource({"README.md, 3", "docs/getting-started.md, 4"})
    void everySnippetComesFromCompiledSources(String page, int leastSnippets) throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        String readme = Files.readString(root.resolve(page));
        List<String> sources = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(p -> p.toString().matches(".*/src/(main|test)/(java|kotlin)/.*\\.(java|kt)$"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .toList()) {
                sources.add(normalize(Files.readString(file)));
            }
        }
        Matcher m = BLOCK.matcher(readme);
        int snippets = 0;
        int buildScripts = 0;
        while (m.find()) {
            if (m.group(1).contains(".gradle.kts")) {
                buildScripts++;
                continue;
            }
            snippets++;
            String snippet = normalize(m.group(3));
            assertThat(sources)
                    .as(
                            "%s: %s snippet #%d is not in any compiled source file:%n%s",
                            page, m.group(2), snippets, m.group(3))
                    .anyMatch(source -> source.contains(snippet));
        }
        assertThat(snippets).as("%s code snippets", page).isGreaterThanOrEqualTo(leastSnippets);
        assertThat((long) (snippets + buildScripts))
                .as("%s java and kotlin blocks, each checked or a build script", page)
                .isEqualTo(Pattern.compile("```(java|kotlin)\\n")
                        .matcher(readme)
                        .results()
                        .count());
    }

    /** Lines trimmed, blank lines dropped: indentation and spacing between blocks do not matter. */
    private static String normalize(String text) {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n", "\n", "\n"));
    }
}
