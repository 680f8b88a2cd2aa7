package dev.outbox.spring.boot.autoconfigure;

import com.rabbitmq.client.ConnectionFactory;
import dev.outbox.api.LogText;
import dev.outbox.delivery.amqp.AmqpAddress;
import dev.outbox.delivery.amqp.AmqpFactories;
import dev.outbox.delivery.amqp.TlsStores;
import java.io.FileNotFoundException;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.ResourceUtils;

/**
 * The broker of the worker and of the embedded relay: {@code outbox.worker.uri} (or
 * {@code outbox.relay.uri}) when set, else Boot's {@code spring.rabbitmq.*}
 * keys with Boot's defaults (localhost, 5672 or 5671 with TLS, guest/guest, virtual host {@code /}).
 * The keys are bound here rather than through Boot's {@code RabbitProperties}, whose package differs
 * between Boot 3.5 and 4.0 and which is absent without Spring AMQP: one code path for both lines, and
 * the worker and the relay keep amqp-client without Spring AMQP.
 *
 * <p>TLS over {@code spring.rabbitmq.*} takes its context from {@code spring.rabbitmq.ssl.bundle} (an SSL
 * bundle of {@code spring.ssl.bundle.*}), or from the key and trust stores of {@code spring.rabbitmq.ssl.*}
 * (PKCS12 or JKS files, {@code classpath:} ones too when they are files), or else from the JVM. The broker's
 * certificate is always checked: {@code validate-server-certificate=false} is refused, not obeyed. An
 * {@code amqps} URI in {@code outbox.<part>.uri} uses the JVM's context.
 */
final class BrokerConnection {

    private static final String RABBIT = "spring.rabbitmq.";
    private static final String SSL = RABBIT + "ssl.";
    private static final String BUNDLE = SSL + "bundle";
    private static final String ALGORITHM = SSL + "algorithm";

    private BrokerConnection() {}

    /**
     * A connection factory that recovers after a network failure, as the worker's own for an AMQP URI
     * (the relay copies it and reconnects by itself).
     *
     * @param part {@code worker} or {@code relay}: whose {@code outbox.<part>.uri} is {@code uri}
     * @param bundles the application's SSL bundles, null where Boot's SSL auto-configuration is off
     */
    static ConnectionFactory of(String part, @Nullable String uri, Binder binder, @Nullable SslBundles bundles) {
        ConnectionFactory factory;
        if (uri != null) {
            factory = AmqpFactories.of(AmqpAddress.parse(uri, "outbox." + part + ".uri"));
        } else {
            AmqpAddress address = fromBoot(part, binder);
            factory = AmqpFactories.of(
                    address,
                    tls(address.tls(), binder, bundles),
                    binder.bind(SSL + "verify-hostname", Boolean.class).orElse(true));
        }
        factory.setAutomaticRecoveryEnabled(true);
        factory.setTopologyRecoveryEnabled(true);
        return factory;
    }

    /**
     * The TLS context of {@code spring.rabbitmq.ssl.*}, null for the JVM's; a setting that cannot take
     * effect (a store without TLS, a store and a bundle, no check of the broker's certificate) is refused.
     */
    private static @Nullable SSLContext tls(boolean on, Binder binder, @Nullable SslBundles bundles) {
        String bundle = text(binder, BUNDLE);
        String keyStore = text(binder, SSL + "key-store");
        String trustStore = text(binder, SSL + "trust-store");
        String algorithm = text(binder, ALGORITHM);
        for (String store : List.of("key-store", "trust-store")) {
            for (String companion : List.of("-password", "-type", "-algorithm")) {
                if (text(binder, SSL + store) == null && text(binder, SSL + store + companion) != null) {
                    throw refused(
                            SSL + store + companion, "is set but " + SSL + store + " is not: name the store it is for");
                }
            }
        }
        String stray = keyStore != null
                ? SSL + "key-store"
                : trustStore != null ? SSL + "trust-store" : algorithm != null ? ALGORITHM : null;
        if (!on) {
            if (stray != null || bundle != null) {
                throw refused(
                        stray != null ? stray : BUNDLE,
                        "is set but the connection is not TLS: set " + SSL + "enabled=true, or an amqps:// address in "
                                + RABBIT + "addresses");
            }
            return null;
        }
        if (!binder.bind(SSL + "validate-server-certificate", Boolean.class).orElse(true)) {
            throw refused(
                    SSL + "validate-server-certificate",
                    "is false, but the outbox always checks the broker's certificate:" + " trust a private CA through "
                            + SSL + "trust-store or " + BUNDLE);
        }
        if (bundle != null) {
            if (stray != null) {
                throw refused(
                        BUNDLE,
                        "and " + stray + " are both set: the bundle holds the stores and the protocol, set them there");
            }
            if (bundles == null) {
                throw refused(
                        BUNDLE, "is set but the application has no SSL bundles (Boot's SslAutoConfiguration is off)");
            }
            try {
                return bundles.getBundle(bundle).createSslContext();
            } catch (NoSuchSslBundleException e) {
                throw refused(
                        BUNDLE,
                        "names no SSL bundle: '" + LogText.of(bundle) + "' is not defined under spring.ssl.bundle.jks.*"
                                + " or spring.ssl.bundle.pem.*");
            }
        }
        if (stray == null) {
            return null;
        }
        try {
            return TlsStores.context(
                    store(binder, "trust-store", trustStore),
                    store(binder, "key-store", keyStore),
                    algorithm,
                    ALGORITHM);
        } catch (OutboxPropertyException e) {
            throw e; // a missing password
        } catch (IllegalArgumentException e) {
            String message = String.valueOf(e.getMessage()); // "setting: problem", never a password
            int colon = message.indexOf(": ");
            throw new OutboxPropertyException(colon > 0 ? message.substring(0, colon) : SSL, message, e);
        }
    }

    /** One store of {@code spring.rabbitmq.ssl.*} ({@code key-store} or {@code trust-store}); null when not set. */
    private static TlsStores.@Nullable Store store(Binder binder, String name, @Nullable String location) {
        if (location == null) {
            return null;
        }
        String setting = SSL + name;
        String type = text(binder, setting + "-type");
        if (type != null && !List.of("PKCS12", "JKS").contains(type.toUpperCase(Locale.ROOT))) {
            throw refused(
                    setting + "-type",
                    "'" + LogText.of(type) + "' is not read here: the outbox reads PKCS12 and JKS stores"
                            + " (others, PEM too, through " + BUNDLE + ")");
        }
        String path;
        try {
            path = ResourceUtils.getFile(location).getPath();
        } catch (FileNotFoundException e) {
            throw refused(
                    setting,
                    LogText.of(location) + " is not a file (a store inside a jar is not read here: name a file,"
                            + " or use " + BUNDLE + ")");
        }
        String passwordSetting = setting + "-password";
        return new TlsStores.Store(
                setting,
                path,
                passwordSetting,
                () -> {
                    String password = text(binder, passwordSetting);
                    if (password == null) {
                        throw refused(passwordSetting, "is required with " + setting + ": the store's password");
                    }
                    return password;
                },
                text(binder, setting + "-algorithm"),
                setting + "-algorithm");
    }

    private static @Nullable String text(Binder binder, String property) {
        String value = binder.bind(property, String.class).orElse(null);
        return value == null || value.isEmpty() ? null : value;
    }

    private static OutboxPropertyException refused(String property, String problem) {
        return new OutboxPropertyException(property, property + ": " + problem);
    }

    /** The address of {@code spring.rabbitmq.*}; a problem names the property. */
    static AmqpAddress fromBoot(String part, Binder binder) {
        boolean tls = binder.bind(SSL + "enabled", Boolean.class).orElse(false)
                || text(binder, BUNDLE) != null; // Boot: a bundle turns TLS on
        String host = binder.bind(RABBIT + "host", String.class).orElse("localhost");
        Integer port = binder.bind(RABBIT + "port", Integer.class).orElse(null);
        String username = binder.bind(RABBIT + "username", String.class).orElse("guest");
        String password = binder.bind(RABBIT + "password", String.class).orElse("guest");
        String virtualHost = binder.bind(RABBIT + "virtual-host", String.class).orElse("/");
        List<String> addresses =
                binder.bind(RABBIT + "addresses", Bindable.listOf(String.class)).orElse(List.of());
        if (addresses.size() > 1) {
            throw new IllegalArgumentException(
                    RABBIT + "addresses: the outbox " + part + " connects to one broker address, got "
                            + addresses.size() + "; name one, or set outbox." + part + ".uri");
        }
        if (addresses.size() == 1) {
            String address = addresses.get(0).trim();
            if (address.startsWith("amqp://") || address.startsWith("amqps://")) {
                AmqpAddress parsed = AmqpAddress.parse(address, RABBIT + "addresses");
                // Boot: what the address leaves out comes from the other keys
                return parsed.username() != null
                        ? parsed
                        : new AmqpAddress(
                                parsed.tls(),
                                parsed.host(),
                                parsed.port(),
                                username,
                                password,
                                parsed.virtualHost(),
                                null,
                                null,
                                null);
            }
            int colon = address.lastIndexOf(':');
            host = colon < 0 ? address : address.substring(0, colon);
            port = colon < 0 ? null : parsePort(address.substring(colon + 1), RABBIT + "addresses");
        }
        int resolvedPort = port != null ? port : (tls ? 5671 : 5672);
        if (host.isBlank() || resolvedPort < 1 || resolvedPort > 65_535) {
            throw new IllegalArgumentException(RABBIT
                    + (host.isBlank() ? "host must not be blank" : "port must be 1..65535, got " + resolvedPort));
        }
        return new AmqpAddress(
                tls,
                host,
                resolvedPort,
                username,
                password,
                virtualHost.isEmpty() ? "/" : virtualHost,
                null,
                null,
                null);
    }

    private static int parsePort(String text, String property) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + ": the port after the host is not a number", e);
        }
    }
}
