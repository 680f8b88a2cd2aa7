package dev.outbox.relay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ConnectionFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Secrets from files (issue 42, item 3): {@code OUTBOX_JDBC_PASSWORD_FILE} and {@code OUTBOX_AMQP_URI_FILE}. */
class SecretFilesTest {

    static final String SECRET = "s3cret-Pa55";

    @TempDir
    Path dir;

    Path file(String name, String content) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, content);
        return f;
    }

    @Test
    void thePasswordComesFromItsFileWithoutTheTrailingNewline() throws Exception {
        Path f = file("password", SECRET + "\n");
        assertThat(ServiceSettings.load(Map.of("OUTBOX_JDBC_PASSWORD_FILE", f.toString()), null)
                        .jdbcPassword())
                .isEqualTo(SECRET);
        Path crlf = file("password-crlf", SECRET + "\r\n");
        assertThat(ServiceSettings.load(Map.of("OUTBOX_JDBC_PASSWORD_FILE", crlf.toString()), null)
                        .jdbcPassword())
                .isEqualTo(SECRET);
        Path spaces = file("password-spaces", " " + SECRET + " ");
        assertThat(ServiceSettings.load(Map.of("OUTBOX_JDBC_PASSWORD_FILE", spaces.toString()), null)
                        .jdbcPassword())
                .as("spaces belong to the secret")
                .isEqualTo(" " + SECRET + " ");
    }

    @Test
    void theAmqpUriComesFromItsFile() throws Exception {
        Path f = file("amqp-uri", "amqp://relay:" + SECRET + "@rabbit.example:5673/%2F\n");
        ConnectionFactory amqp = ServiceSettings.load(Map.of("OUTBOX_AMQP_URI_FILE", f.toString()), null)
                .amqp();
        assertThat(amqp.getHost()).isEqualTo("rabbit.example");
        assertThat(amqp.getPort()).isEqualTo(5673);
        assertThat(amqp.getUsername()).isEqualTo("relay");
        assertThat(amqp.getPassword()).isEqualTo(SECRET);
    }

    @Test
    void theFileMayBeNamedInTheConfigFileToo() throws Exception {
        Path secret = file("password", SECRET + "\n");
        Path config = file("relay.properties", "OUTBOX_JDBC_PASSWORD_FILE=" + secret + "\n");
        assertThat(ServiceSettings.load(Map.of(), config).jdbcPassword()).isEqualTo(SECRET);
    }

    @Test
    void aValueAndAFileForOneSecretIsOneClearError() throws Exception {
        Path f = file("password", SECRET);
        assertThatThrownBy(() -> ServiceSettings.load(
                        Map.of("OUTBOX_JDBC_PASSWORD", "other", "OUTBOX_JDBC_PASSWORD_FILE", f.toString()), null))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "OUTBOX_JDBC_PASSWORD: is given both as a value and as a file (OUTBOX_JDBC_PASSWORD_FILE); give one of them");
        Path config = file("relay.properties", "OUTBOX_AMQP_URI=amqp://a:b@h:5672/%2F\n");
        assertThatThrownBy(() -> ServiceSettings.load(Map.of("OUTBOX_AMQP_URI_FILE", f.toString()), config))
                .hasMessageStartingWith("OUTBOX_AMQP_URI: is given both");
    }

    @Test
    void aBadFileIsNamedAndItsContentNeverShown() throws Exception {
        assertThatThrownBy(() -> ServiceSettings.load(
                        Map.of(
                                "OUTBOX_JDBC_PASSWORD_FILE",
                                dir.resolve("missing").toString()),
                        null))
                .isInstanceOf(ConfigException.class)
                .hasMessage("OUTBOX_JDBC_PASSWORD_FILE: no such file " + dir.resolve("missing"));
        assertThatThrownBy(() -> ServiceSettings.load(Map.of("OUTBOX_JDBC_PASSWORD_FILE", dir.toString()), null))
                .hasMessage("OUTBOX_JDBC_PASSWORD_FILE: " + dir + " is not a regular file");
        Path empty = file("empty", "\n");
        assertThatThrownBy(() -> ServiceSettings.load(Map.of("OUTBOX_JDBC_PASSWORD_FILE", empty.toString()), null))
                .hasMessage("OUTBOX_JDBC_PASSWORD_FILE: " + empty + " is empty");
        Path twoLines = file("two-lines", SECRET + "\nsecond-" + SECRET + "\n");
        assertThatThrownBy(() -> ServiceSettings.load(Map.of("OUTBOX_JDBC_PASSWORD_FILE", twoLines.toString()), null))
                .hasMessageContaining("holds more than one line")
                .hasMessageNotContaining(SECRET);
        Path latin1 = dir.resolve("latin1");
        Files.write(latin1, ("caf" + (char) 0xE9 + SECRET).getBytes(StandardCharsets.ISO_8859_1));
        assertThatThrownBy(() -> ServiceSettings.load(Map.of("OUTBOX_JDBC_PASSWORD_FILE", latin1.toString()), null))
                .hasMessage("OUTBOX_JDBC_PASSWORD_FILE: cannot read " + latin1 + " (not UTF-8 text)");
        Path big = file("big", "x".repeat(ServiceSettings.MAX_VALUE_LENGTH + 1));
        assertThatThrownBy(() -> ServiceSettings.load(Map.of("OUTBOX_AMQP_URI_FILE", big.toString()), null))
                .hasMessage("OUTBOX_AMQP_URI_FILE: " + big + " is larger than " + ServiceSettings.MAX_VALUE_LENGTH
                        + " bytes");
        assertThatThrownBy(() -> ServiceSettings.load(Map.of("OUTBOX_JDBC_PASSWORD_FILE", "bad\0name"), null))
                .hasMessage("OUTBOX_JDBC_PASSWORD_FILE: is not a file name");
    }

    @Test
    void aMistypedFileSettingIsRefusedNamingTheNearest() {
        assertThatThrownBy(() -> ServiceSettings.load(Map.of("OUTBOX_JDBC_PASSWORD_FIL", "/run/secrets/pw"), null))
                .hasMessageContaining("nearest known one is OUTBOX_JDBC_PASSWORD_FILE");
    }
}
