package dev.outbox.apicheck;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * The compiled classes of one module of the build ({@code target/classes} and
 * {@code target/test-classes}), with the packages they define and the packages they reference as
 * the JDK's {@code jdeps} reads them from the class files (Java and Kotlin alike).
 */
record ModuleClasses(
        String module, Set<String> mainPackages, Set<String> definedPackages, Set<String> referencedPackages) {

    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    /** A package line of {@code jdeps -verbose:package}: {@code   from.pkg   -> to.pkg   location}. */
    private static final Pattern DEPENDENCY = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)\\s+.*$");

    /**
     * The modules listed in the root {@code pom.xml} that compile classes, in its order: not a BOM's
     * {@code pom} packaging, nor a module without a {@code src} folder of its own (a dependency-only
     * starter; the Boot 3.5 test module, which compiles another module's test sources, checked there).
     */
    static List<String> modules(Path root) {
        try {
            Matcher m = MODULE.matcher(Files.readString(root.resolve("pom.xml")));
            List<String> modules = new ArrayList<>();
            while (m.find()) {
                String module = m.group(1).trim();
                if (!Files.readString(root.resolve(module).resolve("pom.xml")).contains("<packaging>pom</packaging>")
                        && Files.isDirectory(root.resolve(module).resolve("src"))) {
                    modules.add(module);
                }
            }
            return modules;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads the module's compiled classes; a module with no compiled classes at all is an error (build it first). */
    static ModuleClasses read(Path root, String module) {
        Path main = root.resolve(module).resolve("target/classes");
        Path test = root.resolve(module).resolve("target/test-classes");
        Set<String> mainPackages = packagesIn(main);
        Set<String> defined = new TreeSet<>(mainPackages);
        defined.addAll(packagesIn(test));
        if (defined.isEmpty()) {
            throw new IllegalStateException(module + ": no compiled classes in " + main + " or " + test
                    + "; this check runs after every module is compiled (./mvnw -B verify)");
        }
        Set<String> referenced = new TreeSet<>();
        for (Path dir : List.of(main, test)) {
            if (!packagesIn(dir).isEmpty()) {
                referenced.addAll(referencedBy(dir));
            }
        }
        return new ModuleClasses(module, mainPackages, defined, referenced);
    }

    /** The packages of the class files under {@code dir}; empty when it does not exist. */
    static Set<String> packagesIn(Path dir) {
        Set<String> packages = new TreeSet<>();
        if (!Files.isDirectory(dir)) {
            return packages;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.filter(f -> f.toString().endsWith(".class")
                            && !f.getFileName().toString().equals("module-info.class"))
                    .map(f -> dir.relativize(f.getParent() == null ? dir : f.getParent())
                            .toString()
                            .replace('/', '.'))
                    .filter(p -> !p.isEmpty())
                    .forEach(packages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return packages;
    }

    /** Every package the classes under {@code dir} reference, from {@code jdeps -verbose:package -filter:none}. */
    static Set<String> referencedBy(Path dir) {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps")
                .orElseThrow(
                        () -> new IllegalStateException("jdeps not found: run the build on a JDK (module jdk.jdeps)"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = jdeps.run(
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                "-verbose:package",
                "-filter:none",
                dir.toString());
        if (exit != 0) {
            throw new IllegalStateException(
                    "jdeps " + dir + " exited with " + exit + ": " + err.toString(StandardCharsets.UTF_8));
        }
        Set<String> referenced = new TreeSet<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\\R")) {
            Matcher m = DEPENDENCY.matcher(line);
            if (m.matches()) {
                referenced.add(m.group(2));
            }
        }
        return referenced;
    }
}
