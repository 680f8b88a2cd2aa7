package dev.outbox.delivery.amqp;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * An {@code amqp://} or {@code amqps://} URI read once, by one rule, for the relay and the worker
 * (each configures its connection factory from these fields, never from {@code ConnectionFactory.setUri},
 * which keeps its defaults, 127.0.0.1 and guest, for any host that {@link java.net.URI} cannot read,
 * such as {@code bad_rabbit}).
 *
 * <p>The form is {@code amqp[s]://[user:password@]host[:port][/vhost][?heartbeat=s&connection_timeout=ms&channel_max=n]}.
 * A host is a name of letters, digits, {@code -}, {@code _} and dots (taken literally: container names
 * such as {@code bad_rabbit} are common), or an IPv6 literal in brackets. Everything else is refused with
 * one line that names the setting and never repeats the URI, which may hold a password.
 *
 * @param tls {@code amqps}
 * @param host the host name or address as written (an IPv6 literal keeps its brackets)
 * @param port the port, 5672 ({@code amqp}) or 5671 ({@code amqps}) when none is written
 * @param username null when the URI names no user (the client's default, {@code guest}, applies)
 * @param password null exactly when {@code username} is null
 * @param virtualHost the virtual host, {@code /} when the URI has no path
 * @param heartbeatSeconds the {@code heartbeat} query parameter, null when absent
 * @param connectionTimeoutMillis the {@code connection_timeout} query parameter, null when absent
 * @param channelMax the {@code channel_max} query parameter, null when absent
 */
public record AmqpAddress(
        boolean tls,
        String host,
        int port,
        @Nullable String username,
        @Nullable String password,
        String virtualHost,
        @Nullable Integer heartbeatSeconds,
        @Nullable Integer connectionTimeoutMillis,
        @Nullable Integer channelMax) {

    /** The longest URI read, in characters. */
    public static final int MAX_LENGTH = 4096;
    /** AMQP 0-9-1 sends the virtual host as a short string: at most 255 bytes of UTF-8. */
    public static final int MAX_VHOST_BYTES = 255;

    public AmqpAddress {
        if (host.isEmpty() || port < 1 || port > 65_535 || (username == null) != (password == null)) {
            throw new IllegalArgumentException(
                    "AmqpAddress: a host, a port from 1 to 65535, and a password exactly when a user");
        }
    }

    /**
     * Reads {@code uri}; a problem is an {@link IllegalArgumentException} whose message starts with
     * {@code setting} (e.g. {@code amqpUri: ...} or {@code OUTBOX_AMQP_URI: ...}) and holds no part of the URI.
     */
    public static AmqpAddress parse(String uri, String setting) {
        return new Reader(uri, setting).read();
    }

    /** The address without the password, for logs and messages. */
    @Override
    public String toString() {
        return (tls ? "amqps://" : "amqp://") + (username == null ? "" : "<user>@") + host + ":" + port + "/<vhost>";
    }

    private static final class Reader {
        private final String uri;
        private final String setting;

        Reader(String uri, String setting) {
            this.uri = uri;
            this.setting = setting;
        }

        private IllegalArgumentException refused(String problem) {
            return new IllegalArgumentException(setting + ": " + problem);
        }

        AmqpAddress read() {
            if (uri.isEmpty()) {
                throw refused("is empty; expected amqp://user:password@host:5672/%2F");
            }
            if (uri.length() > MAX_LENGTH) {
                throw refused("is longer than " + MAX_LENGTH + " characters");
            }
            for (int i = 0; i < uri.length(); i++) {
                char c = uri.charAt(i);
                if (c <= ' ' || c >= 0x7f) {
                    throw refused("holds a space, a control or a non-ASCII character at position " + (i + 1)
                            + " (percent-encode it, e.g. %20)");
                }
            }
            int schemeEnd = uri.indexOf("://");
            String scheme = schemeEnd < 0 ? "" : uri.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
            boolean tls;
            if (scheme.equals("amqp")) {
                tls = false;
            } else if (scheme.equals("amqps")) {
                tls = true;
            } else {
                throw refused("must start with amqp:// or amqps:// (e.g. amqp://user:password@host:5672/%2F)");
            }
            String rest = uri.substring(schemeEnd + 3);
            if (rest.indexOf('#') >= 0) {
                throw refused("must not hold a # (a fragment); percent-encode # in a password as %23");
            }
            int authorityEnd = firstOf(rest, "/?");
            String authority = rest.substring(0, authorityEnd);
            String path = "";
            String query = "";
            String tail = rest.substring(authorityEnd);
            int q = tail.indexOf('?');
            if (q >= 0) {
                query = tail.substring(q + 1);
                path = tail.substring(0, q);
            } else {
                path = tail;
            }
            if (path.indexOf('@') >= 0 || query.indexOf('@') >= 0) {
                throw refused(
                        "holds an @ after the host; percent-encode /, ?, # and @ in a user name or password (%2F, %3F, %23, %40)");
            }

            String username = null;
            String password = null;
            String hostPort = authority;
            int at = authority.lastIndexOf('@');
            if (at >= 0) {
                String userInfo = authority.substring(0, at);
                hostPort = authority.substring(at + 1);
                int colon = userInfo.indexOf(':');
                if (colon < 0) {
                    throw refused("names a user but no password (write user:password@host)");
                }
                if (userInfo.indexOf(':', colon + 1) >= 0) {
                    throw refused("has more than one : before the @; percent-encode : in a password as %3A");
                }
                if (userInfo.indexOf('@') >= 0) {
                    throw refused("has more than one @; percent-encode @ in a user name or password as %40");
                }
                username = decode(userInfo.substring(0, colon), "user name");
                password = decode(userInfo.substring(colon + 1), "password");
                if (username.isEmpty()) {
                    throw refused("names an empty user name");
                }
                if (hasControl(username)) {
                    throw refused("has a control character in the user name");
                }
            }

            String host;
            String portText = null;
            if (hostPort.startsWith("[")) {
                int close = hostPort.indexOf(']');
                if (close < 0) {
                    throw refused("has an IPv6 address without its closing ]");
                }
                host = hostPort.substring(0, close + 1);
                String inside = host.substring(1, host.length() - 1);
                if (inside.isEmpty()
                        || !inside.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')) {
                    throw refused("has an IPv6 address that is not hexadecimal digits, : and .");
                }
                String after = hostPort.substring(close + 1);
                if (!after.isEmpty()) {
                    if (!after.startsWith(":")) {
                        throw refused("has something other than :port after the IPv6 address");
                    }
                    portText = after.substring(1);
                }
            } else {
                int colon = hostPort.indexOf(':');
                host = colon < 0 ? hostPort : hostPort.substring(0, colon);
                portText = colon < 0 ? null : hostPort.substring(colon + 1);
                checkHostName(host);
            }
            int port = tls ? 5671 : 5672;
            if (portText != null) {
                port = number(portText, "the port", 1, 65_535);
            }

            String virtualHost = "/";
            if (!path.isEmpty()) {
                String raw = path.substring(1);
                if (raw.isEmpty()) {
                    throw refused(
                            "names an empty virtual host: leave the path out or end with /%2F for the default virtual host /");
                }
                if (raw.indexOf('/') >= 0) {
                    throw refused("has more than one / after the host; percent-encode / in the virtual host as %2F");
                }
                virtualHost = decode(raw, "virtual host");
                if (virtualHost.getBytes(StandardCharsets.UTF_8).length > MAX_VHOST_BYTES) {
                    throw refused("names a virtual host longer than " + MAX_VHOST_BYTES + " bytes of UTF-8");
                }
                if (hasControl(virtualHost)) {
                    throw refused("has a control character in the virtual host");
                }
            }

            Integer heartbeat = null;
            Integer connectionTimeout = null;
            Integer channelMax = null;
            if (!query.isEmpty()) {
                for (String pair : query.split("&", -1)) {
                    int eq = pair.indexOf('=');
                    String key = eq < 0 ? pair : pair.substring(0, eq);
                    String value = eq < 0 ? "" : pair.substring(eq + 1);
                    switch (key) {
                        case "heartbeat" -> heartbeat = once(heartbeat, key, number(value, "heartbeat", 0, 65_535));
                        case "connection_timeout" ->
                            connectionTimeout =
                                    once(connectionTimeout, key, number(value, "connection_timeout", 0, 3_600_000));
                        case "channel_max" ->
                            channelMax = once(channelMax, key, number(value, "channel_max", 0, 65_535));
                        default ->
                            throw refused("has an unknown query parameter"
                                    + (key.matches("[a-z_]{1,40}") ? " '" + key + "'" : "")
                                    + " (known: heartbeat, connection_timeout, channel_max)");
                    }
                }
            }
            return new AmqpAddress(
                    tls, host, port, username, password, virtualHost, heartbeat, connectionTimeout, channelMax);
        }

        private void checkHostName(String host) {
            if (host.isEmpty()) {
                throw refused("names no host (e.g. amqp://user:password@host:5672/%2F)");
            }
            if (host.length() > 253) {
                throw refused("names a host longer than 253 characters");
            }
            String labels = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
            for (String label : labels.split("\\.", -1)) {
                if (label.isEmpty() || label.length() > 63) {
                    throw refused(
                            "names a host with an empty part or a part longer than 63 characters between its dots");
                }
                if (!label.chars()
                        .allMatch(c -> (c >= 'a' && c <= 'z')
                                || (c >= 'A' && c <= 'Z')
                                || (c >= '0' && c <= '9')
                                || c == '-'
                                || c == '_')) {
                    throw refused("names a host with a character other than letters, digits, -, _ and . (or a password"
                            + " with an unencoded /, ?, # or @: percent-encode them)");
                }
            }
        }

        private Integer once(@Nullable Integer previous, String key, int value) {
            if (previous != null) {
                throw refused("gives the query parameter " + key + " twice");
            }
            return value;
        }

        private int number(String text, String what, int min, int max) {
            if (text.isEmpty() || text.length() > 9 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw refused(what + " must be a whole number from " + min + " to " + max);
            }
            int n = Integer.parseInt(text);
            if (n < min || n > max) {
                throw refused(what + " must be a whole number from " + min + " to " + max);
            }
            return n;
        }

        /** RFC 3986 percent-decoding to UTF-8 ({@code +} stays a plus). */
        private String decode(String text, String what) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '%') {
                    int hi = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
                    int lo = hi >= 0 ? Character.digit(text.charAt(i + 2), 16) : -1;
                    if (lo < 0) {
                        throw refused(
                                "has a % not followed by two hexadecimal digits in the " + what + " (write % as %25)");
                    }
                    bytes.write(hi * 16 + lo);
                    i += 2;
                } else if ("[]<>\"\\^`{|}".indexOf(c) >= 0) {
                    throw refused("has a character in the " + what + " that must be percent-encoded");
                } else {
                    bytes.write(c);
                }
            }
            try {
                return StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes.toByteArray()))
                        .toString();
            } catch (CharacterCodingException e) {
                throw refused("has percent-encoded bytes in the " + what + " that are not UTF-8");
            }
        }

        private static boolean hasControl(String s) {
            return s.chars().anyMatch(Character::isISOControl);
        }

        private static int firstOf(String s, String chars) {
            for (int i = 0; i < s.length(); i++) {
                if (chars.indexOf(s.charAt(i)) >= 0) {
                    return i;
                }
            }
            return s.length();
        }
    }
}
