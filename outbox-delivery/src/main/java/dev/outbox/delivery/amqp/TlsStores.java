package dev.outbox.delivery.amqp;

import dev.outbox.api.LogText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyManagementException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.NoSuchAlgorithmException;
import java.security.UnrecoverableKeyException;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The TLS context of an AMQP connection from a trust store (the CAs that may sign the broker's
 * certificate; without one, the JVM's) and a key store (the client's key and certificate, for a
 * broker that asks for one), PKCS12 or JKS. Every problem is an {@link IllegalArgumentException}
 * whose message starts with the name of the setting at fault ({@code SETTING: problem}) and never
 * shows a password.
 */
public final class TlsStores {

    private TlsStores() {}

    /**
     * One store and where its values come from.
     *
     * @param setting the setting that names the file, for messages
     * @param path the file
     * @param passwordSetting the setting of its password, for messages
     * @param password the password, asked for when the store is opened (it may throw the caller's own error when missing)
     * @param algorithm the algorithm of its trust or key manager factory, null for the JVM's default
     * @param algorithmSetting the setting of {@code algorithm}, for messages
     */
    public record Store(
            String setting,
            String path,
            String passwordSetting,
            Supplier<String> password,
            @Nullable String algorithm,
            String algorithmSetting) {

        /** A store read with the JVM's default algorithm. */
        public Store(String setting, String path, String passwordSetting, Supplier<String> password) {
            this(setting, path, passwordSetting, password, null, setting);
        }
    }

    /** The context of {@code trust} and {@code key}, at least one of them given. */
    public static SSLContext context(@Nullable Store trust, @Nullable Store key) {
        return context(trust, key, null, "TLS");
    }

    /**
     * The context of {@code trust} and {@code key} (either may be null: then the JVM's trust store, and no
     * client certificate) for {@code protocol} ({@code TLSv1.3}; null for {@code TLS}, the highest both
     * ends speak), named {@code protocolSetting} in messages.
     */
    public static SSLContext context(
            @Nullable Store trust, @Nullable Store key, @Nullable String protocol, String protocolSetting) {
        TrustManager[] trustManagers = null;
        if (trust != null) {
            KeyStore store = open(trust);
            TrustManagerFactory factory = managers(
                    trust,
                    () -> TrustManagerFactory.getInstance(
                            trust.algorithm() != null ? trust.algorithm() : TrustManagerFactory.getDefaultAlgorithm()));
            try {
                if (!hasCertificate(store)) {
                    throw named(trust.setting(), LogText.of(trust.path()) + " holds no certificate to trust");
                }
                factory.init(store);
            } catch (GeneralSecurityException e) {
                throw named(
                        trust.setting(),
                        "cannot be used for TLS (" + e.getClass().getSimpleName() + ")");
            }
            trustManagers = factory.getTrustManagers();
        }
        KeyManager[] keyManagers = null;
        if (key != null) {
            KeyStore store = open(key);
            KeyManagerFactory factory = managers(
                    key,
                    () -> KeyManagerFactory.getInstance(
                            key.algorithm() != null ? key.algorithm() : KeyManagerFactory.getDefaultAlgorithm()));
            try {
                if (!hasKey(store)) {
                    throw named(key.setting(), LogText.of(key.path()) + " holds no private key");
                }
                factory.init(store, key.password().get().toCharArray());
            } catch (UnrecoverableKeyException e) {
                throw named(
                        key.passwordSetting(),
                        "opens " + key.setting() + " but not its key (the key needs the store's password)");
            } catch (GeneralSecurityException e) {
                throw named(
                        key.setting(), "cannot be used for TLS (" + e.getClass().getSimpleName() + ")");
            }
            keyManagers = factory.getKeyManagers();
        }
        SSLContext context;
        try {
            context = SSLContext.getInstance(protocol != null ? protocol : "TLS");
        } catch (NoSuchAlgorithmException e) {
            throw named(
                    protocolSetting,
                    "'" + LogText.of(protocol) + "' is not a TLS protocol this JVM knows (TLSv1.3, TLSv1.2)");
        }
        try {
            context.init(keyManagers, trustManagers, null);
        } catch (KeyManagementException e) {
            throw named(
                    trust != null ? trust.setting() : key != null ? key.setting() : protocolSetting,
                    "cannot be used for TLS (" + e.getClass().getSimpleName() + ")");
        }
        return context;
    }

    /** What makes a trust or key manager factory, which may not know the algorithm asked for. */
    private interface Factory<T> {
        T make() throws NoSuchAlgorithmException;
    }

    private static <T> T managers(Store store, Factory<T> factory) {
        try {
            return factory.make();
        } catch (NoSuchAlgorithmException e) {
            throw named(
                    store.algorithmSetting(),
                    "'" + LogText.of(store.algorithm()) + "' is not an algorithm this JVM knows (PKIX, SunX509)");
        }
    }

    /** A PKCS12 or JKS store (the JDK tells which) opened with its password; errors name the setting, never the password. */
    private static KeyStore open(Store store) {
        String password = store.password().get();
        String key = store.setting();
        String path = store.path();
        Path file;
        try {
            file = Path.of(path);
        } catch (java.nio.file.InvalidPathException e) {
            throw named(key, "is not a file name");
        }
        if (!Files.isRegularFile(file)) {
            throw named(
                    key,
                    Files.exists(file)
                            ? LogText.of(path) + " is not a regular file"
                            : "no such file " + LogText.of(path));
        }
        try {
            return KeyStore.getInstance(file.toFile(), password.toCharArray());
        } catch (IOException e) {
            if (e.getCause() instanceof UnrecoverableKeyException) {
                throw named(
                        store.passwordSetting(), "does not open " + key + " " + LogText.of(path) + " (wrong password)");
            }
            throw named(
                    key, "cannot read " + LogText.of(path) + " (" + e.getClass().getSimpleName() + ")");
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw named(key, LogText.of(path) + " is not a PKCS12 or JKS store");
        }
    }

    private static boolean hasCertificate(KeyStore store) throws KeyStoreException {
        for (String alias : java.util.Collections.list(store.aliases())) {
            if (store.isCertificateEntry(alias) || (store.isKeyEntry(alias) && store.getCertificate(alias) != null)) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasKey(KeyStore store) throws KeyStoreException {
        for (String alias : java.util.Collections.list(store.aliases())) {
            if (store.isKeyEntry(alias)) {
                return true;
            }
        }
        return false;
    }

    private static IllegalArgumentException named(String setting, String problem) {
        return new IllegalArgumentException(setting + ": " + problem);
    }
}
