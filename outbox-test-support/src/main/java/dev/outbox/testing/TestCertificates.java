package dev.outbox.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A certificate authority and the certificates the TLS tests need, made once per test JVM with the
 * JDK's {@code keytool} (EC P-256 keys: quick to make), in a temporary directory of their own:
 * <ul>
 *   <li>{@link #caPem()}: the CA, and {@link #trustStore()} holding it (PKCS12, {@link #PASSWORD});</li>
 *   <li>{@link #serverKeyStore()}: a server key and certificate for the host name {@code localhost} only,
 *       signed by the CA, also as PEM files ({@link #serverCertPem()}, {@link #serverKeyPem()}) for PostgreSQL;</li>
 *   <li>{@link #clientKeyStore()}: a client key and certificate signed by the CA (mutual TLS);</li>
 *   <li>{@link #otherCaPem()} and {@link #otherTrustStore()}: a second CA that signed nothing here (the wrong CA).</li>
 * </ul>
 */
public final class TestCertificates {

    public static final String PASSWORD = "changeit-7";

    private static @Nullable TestCertificates instance;

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    public static synchronized TestCertificates get() {
        TestCertificates made = instance;
        if (made == null) {
            try {
                made = new TestCertificates(Files.createTempDirectory("outbox-tls-"));
                made.make();
                instance = made;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return made;
    }

    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    public Path serverKeyStore() {
        return dir.resolve("server.p12");
    }

    /** The server's certificate alone (PostgreSQL finds the CA's through the client). */
    public Path serverCertPem() {
        return dir.resolve("server.pem");
    }

    public Path serverKeyPem() {
        return dir.resolve("server.key");
    }

    public Path clientKeyStore() {
        return dir.resolve("client.p12");
    }

    public Path otherCaPem() {
        return dir.resolve("other-ca.pem");
    }

    public Path otherTrustStore() {
        return dir.resolve("other-truststore.p12");
    }

    /**
     * Three rounds of keytool runs side by side (each run starts a JVM); the trust stores, the chains
     * and the PEM files are written here in Java.
     */
    private void make() throws IOException {
        parallel(List.of("ca", "other-ca", "server", "client"), name -> {
            List<String> args = new ArrayList<>(List.of(
                    "-genkeypair",
                    "-alias",
                    name,
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    DNAMES.get(name),
                    "-validity",
                    "30",
                    "-keystore",
                    name + ".p12"));
            if (name.endsWith("ca")) {
                args.addAll(List.of("-ext", "bc:c"));
            }
            keytool(args.toArray(String[]::new));
        });
        parallel(
                List.of("server", "client"),
                name -> keytool("-certreq", "-alias", name, "-keystore", name + ".p12", "-file", name + ".csr"));
        parallel(
                List.of("server", "client"),
                name -> keytool(
                        "-gencert",
                        "-alias",
                        "ca",
                        "-keystore",
                        "ca.p12",
                        "-infile",
                        name + ".csr",
                        "-outfile",
                        name + ".pem",
                        "-rfc",
                        "-validity",
                        "30",
                        "-ext",
                        name.equals("server") ? "san=dns:localhost" : "eku=clientAuth",
                        "-ext",
                        name.equals("server") ? "eku=serverAuth" : "ku=dig"));
        try {
            Certificate ca = certificate("ca.p12", "ca");
            Files.writeString(caPem(), pem("CERTIFICATE", ca.getEncoded()));
            Files.writeString(
                    otherCaPem(),
                    pem("CERTIFICATE", certificate("other-ca.p12", "other-ca").getEncoded()));
            trustStore(trustStore(), ca);
            trustStore(otherTrustStore(), certificate("other-ca.p12", "other-ca"));
            for (String name : List.of("server", "client")) {
                KeyStore store = load(name + ".p12");
                Key key = store.getKey(name, PASSWORD.toCharArray());
                Certificate signed;
                try (InputStream in = Files.newInputStream(dir.resolve(name + ".pem"))) {
                    signed = CertificateFactory.getInstance("X.509").generateCertificate(in);
                }
                store.setKeyEntry(name, key, PASSWORD.toCharArray(), new Certificate[] {signed, ca});
                try (OutputStream out = Files.newOutputStream(dir.resolve(name + ".p12"))) {
                    store.store(out, PASSWORD.toCharArray());
                }
                if (name.equals("server")) {
                    Files.writeString(serverKeyPem(), pem("PRIVATE KEY", key.getEncoded()));
                    Files.setPosixFilePermissions(serverKeyPem(), PosixFilePermissions.fromString("rw-------"));
                }
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot assemble the test certificates", e);
        }
    }

    private static final Map<String, String> DNAMES = Map.of(
            "ca",
            "CN=Outbox Test CA",
            "other-ca",
            "CN=Outbox Other CA",
            "server",
            "CN=localhost",
            "client",
            "CN=outbox-relay");

    private static void parallel(List<String> names, java.util.function.Consumer<String> step) {
        List<Thread> threads = new ArrayList<>();
        List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (String name : names) {
            Thread t = new Thread(
                    () -> {
                        try {
                            step.accept(name);
                        } catch (RuntimeException e) {
                            failures.add(e);
                        }
                    },
                    "keytool-" + name);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }

    private KeyStore load(String store) throws IOException, GeneralSecurityException {
        return KeyStore.getInstance(dir.resolve(store).toFile(), PASSWORD.toCharArray());
    }

    private Certificate certificate(String store, String alias) throws IOException, GeneralSecurityException {
        return load(store).getCertificate(alias);
    }

    private static void trustStore(Path file, Certificate ca) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", ca);
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, PASSWORD.toCharArray());
        }
    }

    private static String pem(String type, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    }

    private void keytool(String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.add("-J-XX:TieredStopAtLevel=1");
        command.addAll(List.of(args));
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD));
        try {
            Process process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
