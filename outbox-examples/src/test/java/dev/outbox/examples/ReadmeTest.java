package dev.outbox.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each generated page is what {@code python3 docs/readme.py} makes of its template and the sources it
 * quotes (the same substitution, done here so the build needs no Python): README.md of
 * {@code docs/README.template.md}, docs/getting-started.md of {@code docs/getting-started.template.md}.
 * A page edited by hand, or left behind a change of its template or of a quoted source, fails the build.
 */
class ReadmeTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern SNIPPET = Pattern.compile("\\{\\{snippet ([^ ]+) ([^}]+)\\}\\}");
    private static final Pattern FILE = Pattern.compile("\\{\\{file ([^}]+)\\}\\}");

    @ParameterizedTest
    @CsvSource({"docs/README.template.md, README.md", "docs/getting-started.template.md, docs/getting-started.md"
    }) // as in docs/readme.py
    void eachPageIsItsTemplateWithItsSnippetsFilledIn(String template, String page) throws IOException {
        String expected = render(Files.readString(ROOT.resolve(template)));
        assertThat(Files.readString(ROOT.resolve(page)))
                .as("%s is stale: run python3 docs/readme.py", page)
                .isEqualTo(expected);
    }

    @Test
    void theGettingStartedQuotesEveryExampleSourceWhole() throws IOException {
        String template = Files.readString(ROOT.resolve("docs/getting-started.template.md"));
        for (String source : List.of(
                "outbox-examples/src/main/java/com/example/orders/OrdersApp.java",
                "outbox-examples/src/main/java/com/example/orders/OrderPlaced.java",
                "outbox-examples/src/main/resources/db/migration/V1__orders.sql",
                "outbox-examples/src/main/java/com/example/jobs/JobService.java",
                "outbox-examples/src/main/java/com/example/jobs/OrderPlaced.java",
                "outbox-examples/routes.yaml",
                "outbox-examples/src/main/java/com/example/relay/RelayApp.java")) {
            assertThat(template).contains("{{file " + source + "}}");
        }
    }

    static String render(String template) {
        String out = replace(SNIPPET, template, m -> snippet(m.group(1), m.group(2)));
        return replace(FILE, out, m -> read(m.group(1)).replaceFirst("\\n+$", ""));
    }

    private static String replace(Pattern pattern, String text, java.util.function.Function<Matcher, String> value) {
        Matcher m = pattern.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(value.apply(m)));
        }
        return m.appendTail(out).toString();
    }

    private static String snippet(String path, String name) {
        Matcher m = Pattern.compile(
                        "(?://|#|--) snippet:" + Pattern.quote(name) + "\\n(.*?)\\n[ \\t]*(?://|#|--) end-snippet",
                        Pattern.DOTALL)
                .matcher(read(path));
        assertThat(m.find()).as("snippet %s in %s", name, path).isTrue();
        List<String> lines = List.of(m.group(1).split("\n", -1));
        int indent = lines.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        return String.join(
                "\n",
                lines.stream()
                        .map(l -> l.length() >= indent ? l.substring(indent) : l.strip())
                        .toList());
    }

    private static String read(String path) {
        try {
            return Files.readString(ROOT.resolve(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
