package dev.outbox.relay.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the project version, written into {@code version.properties} by the build. */
final class BuildVersion implements IVersionProvider {

    /** The build's version, e.g. {@code 0.1.0-SNAPSHOT}. */
    static String version() {
        try (InputStream in = BuildVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("version.properties is missing from the relay service's classes");
            }
            Properties p = new Properties();
            p.load(in);
            String version = p.getProperty("version", "");
            if (version.isBlank() || version.contains("${")) {
                throw new IllegalStateException("version.properties was not filtered by the build: '" + version + "'");
            }
            return version;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String[] getVersion() {
        return new String[] {"outbox-relay " + version()};
    }
}
