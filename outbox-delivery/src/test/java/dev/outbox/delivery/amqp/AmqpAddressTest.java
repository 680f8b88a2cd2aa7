package dev.outbox.delivery.amqp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One rule for AMQP URIs: what is read, and every form that is refused, without echoing the URI. */
class AmqpAddressTest {

    @Test
    void readsAnUnderscoreHostLiterally() {
        AmqpAddress a = AmqpAddress.parse("amqp://relay:pw@bad_rabbit:5672/%2F", "amqpUri");

        assertThat(a.host()).isEqualTo("bad_rabbit");
        assertThat(a.port()).isEqualTo(5672);
        assertThat(a.username()).isEqualTo("relay");
        assertThat(a.password()).isEqualTo("pw");
        assertThat(a.virtualHost()).isEqualTo("/");
        assertThat(a.tls()).isFalse();
    }

    @Test
    void readsEveryPart() {
        AmqpAddress a = AmqpAddress.parse(
                "AMQPS://us%40er:p%3Aa%2Fss+w%C3%A9@Rabbit-1.example.com:5999/prod%2Fa"
                        + "?heartbeat=30&connection_timeout=5000&channel_max=64",
                "amqpUri");

        assertThat(a.tls()).isTrue();
        assertThat(a.host()).isEqualTo("Rabbit-1.example.com");
        assertThat(a.port()).isEqualTo(5999);
        assertThat(a.username()).isEqualTo("us@er");
        assertThat(a.password()).isEqualTo("p:a/ss+wé");
        assertThat(a.virtualHost()).isEqualTo("prod/a");
        assertThat(a.heartbeatSeconds()).isEqualTo(30);
        assertThat(a.connectionTimeoutMillis()).isEqualTo(5000);
        assertThat(a.channelMax()).isEqualTo(64);
    }

    @Test
    void defaultsThePortByScheme_theVhostToSlash_andTheUserToTheClientsDefault() {
        AmqpAddress plain = AmqpAddress.parse("amqp://rabbit", "amqpUri");
        AmqpAddress tls = AmqpAddress.parse("amqps://rabbit", "amqpUri");

        assertThat(plain.port()).isEqualTo(5672);
        assertThat(tls.port()).isEqualTo(5671);
        assertThat(plain.virtualHost()).isEqualTo("/");
        assertThat(plain.username()).isNull();
        assertThat(plain.password()).isNull();
        assertThat(plain.heartbeatSeconds()).isNull();
    }

    @Test
    void readsIpAddressesAndAnEmptyPassword() {
        assertThat(AmqpAddress.parse("amqp://u:@127.0.0.1:5673/v", "amqpUri").password())
                .isEmpty();
        AmqpAddress v6 = AmqpAddress.parse("amqp://[::1]:5673/v", "amqpUri");
        assertThat(v6.host()).isEqualTo("[::1]");
        assertThat(v6.port()).isEqualTo(5673);
        assertThat(AmqpAddress.parse("amqp://rabbit.example.com./v", "amqpUri").host())
                .isEqualTo("rabbit.example.com.");
    }

    @Test
    void neverShowsThePasswordInToString() {
        assertThat(AmqpAddress.parse("amqp://relay:s3cret@rabbit/%2F", "amqpUri")
                        .toString())
                .doesNotContain("s3cret");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '\'',
            value = {
                "''                                                    | is empty",
                "http://u:s3cret@rabbit/%2F                            | must start with amqp:// or amqps://",
                "rabbit:5672                                           | must start with amqp:// or amqps://",
                "amqp:/u:s3cret@rabbit                                 | must start with amqp:// or amqps://",
                "amqp://u:s3cret@                                      | names no host",
                "amqp://u:s3cret@:5672/%2F                             | names no host",
                "amqp://                                               | names no host",
                "amqp://u:s3cret@rabbit:abc/%2F                        | the port must be a whole number from 1 to 65535",
                "amqp://u:s3cret@rabbit:/%2F                           | the port must be a whole number from 1 to 65535",
                "amqp://u:s3cret@rabbit:0/%2F                          | the port must be a whole number from 1 to 65535",
                "amqp://u:s3cret@rabbit:65536/%2F                      | the port must be a whole number from 1 to 65535",
                "amqp://u:s3cret@rabbit:-1/%2F                         | the port must be a whole number from 1 to 65535",
                "amqp://u:s3cret@rabbit:99999999999/%2F                | the port must be a whole number from 1 to 65535",
                "amqp://u:s3cret@rab*bit/%2F                           | names a host with a character other than",
                "amqp://u:s3cret@rab%62it/%2F                          | names a host with a character other than",
                "amqp://u:s3cret@rabbit..local/%2F                     | names a host with an empty part",
                "amqp://u:s3cret@[::1/%2F                              | without its closing ]",
                "amqp://u:s3cret@[zz::1]/%2F                           | IPv6 address that is not hexadecimal",
                "amqp://u:s3cret@[::1]x/%2F                            | other than :port after the IPv6 address",
                "amqp://u@rabbit/%2F                                   | names a user but no password",
                "amqp://:s3cret@rabbit/%2F                             | names an empty user name",
                "amqp://u:s3:cret@rabbit/%2F                           | more than one : before the @",
                "amqp://u:s3cret/x@rabbit/%2F                          | holds an @ after the host",
                "amqp://u:s3cret#x@rabbit/%2F                          | must not hold a #",
                "amqp://u:s3cret?x@rabbit/%2F                          | holds an @ after the host",
                "amqp://u:s3cret%zz@rabbit/%2F                         | % not followed by two hexadecimal digits in the password",
                "amqp://u:s3cret%@rabbit/%2F                           | % not followed by two hexadecimal digits in the password",
                "amqp://u:s3cret%ff@rabbit/%2F                         | not UTF-8",
                "amqp://u:s3cr{et@rabbit/%2F                           | must be percent-encoded",
                "amqp://u%01:s3cret@rabbit/%2F                         | control character in the user name",
                "amqp://u:s3cret@rabbit/                               | names an empty virtual host",
                "amqp://u:s3cret@rabbit/a/b                            | more than one / after the host",
                "amqp://u:s3cret@rabbit/a%00                           | control character in the virtual host",
                "'amqp://u:s3cret@rab bit/%2F'                         | holds a space, a control or a non-ASCII character at position 20",
                "amqp://u:s3crét@rabbit/%2F                            | non-ASCII character",
                "amqp://u:s3cret@rabbit/%2F?heartbeat=x                | heartbeat must be a whole number from 0 to 65535",
                "amqp://u:s3cret@rabbit/%2F?heartbeat=70000            | heartbeat must be a whole number from 0 to 65535",
                "amqp://u:s3cret@rabbit/%2F?connection_timeout=-5      | connection_timeout must be a whole number",
                "amqp://u:s3cret@rabbit/%2F?channel_max=               | channel_max must be a whole number",
                "amqp://u:s3cret@rabbit/%2F?heartbeat=1&heartbeat=2    | the query parameter heartbeat twice",
                "amqp://u:s3cret@rabbit/%2F?heartbeet=30               | unknown query parameter 'heartbeet'",
                "amqp://u:s3cret@rabbit/%2F?s3cret                     | unknown query parameter (known:",
            })
    void refusesWithOneLineThatNamesTheSettingAndNotTheUri(String uri, String problem) {
        String given = uri == null ? "" : uri;
        assertThatThrownBy(() -> AmqpAddress.parse(given, "OUTBOX_AMQP_URI"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("OUTBOX_AMQP_URI: ")
                .hasMessageContaining(problem)
                .satisfies(e -> assertThat(e.getMessage())
                        .doesNotContain("s3cr")
                        .doesNotContain("rabbit")
                        .doesNotContain("\n"));
    }

    @Test
    void refusesAVirtualHostOver255BytesAndAUriOver4096Characters() {
        String longVhost = "%C3%A9".repeat(128); // 256 bytes
        assertThatThrownBy(() -> AmqpAddress.parse("amqp://rabbit/" + longVhost, "amqpUri"))
                .hasMessage("amqpUri: names a virtual host longer than 255 bytes of UTF-8");
        assertThat(AmqpAddress.parse("amqp://rabbit/" + "%C3%A9".repeat(127) + "a", "amqpUri")
                        .virtualHost())
                .hasSize(128);
        assertThatThrownBy(() -> AmqpAddress.parse("amqp://rabbit/" + "a".repeat(4096), "amqpUri"))
                .hasMessage("amqpUri: is longer than 4096 characters");
        assertThatThrownBy(() -> AmqpAddress.parse("amqp://" + "a".repeat(64) + ".example/%2F", "amqpUri"))
                .hasMessageContaining("longer than 63 characters");
        assertThatThrownBy(() -> AmqpAddress.parse("amqp://" + "abcdefghi.".repeat(26) + "com/%2F", "amqpUri"))
                .hasMessageContaining("host longer than 253 characters");
    }
}
