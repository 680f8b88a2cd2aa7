package dev.outbox.delivery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.net.ConnectException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

/**
 * Which failures {@link TlsRefusal} calls a refused certificate, on the exception chains the JDK and the
 * PostgreSQL driver build (the TLS tests of outbox-relay-service meet them on real servers), and that
 * {@link DatabaseOutages} no longer waits for those while it still waits for a handshake cut short.
 */
class TlsRefusalTest {

    static SSLHandshakeException handshake(Throwable cause) {
        SSLHandshakeException e = new SSLHandshakeException("handshake failed");
        e.initCause(cause);
        return e;
    }

    static PSQLException driver(Throwable cause) {
        return new PSQLException("SSL error", PSQLState.CONNECTION_FAILURE, cause);
    }

    @Test
    void aChainToNoTrustedCaIsUntrustedAndFatal() {
        Exception e = driver(handshake(new CertificateException(
                "PKIX path building failed", new CertPathBuilderException("unable to find valid certification path"))));

        assertThat(TlsRefusal.of(e)).isEqualTo(TlsRefusal.UNTRUSTED);
        assertThat(DatabaseOutages.isTransient(e)).isFalse();
        assertThat(DatabaseOutages.hint(e, null))
                .startsWith(": TLS: the server's certificate is not trusted")
                .contains("sslrootcert");
    }

    @Test
    void anExpiredCertificateIsUntrusted() {
        Exception e = handshake(new CertificateException(
                "validity check failed",
                new CertPathValidatorException("validity check failed", new CertificateExpiredException("NotAfter"))));

        assertThat(TlsRefusal.of(e)).isEqualTo(TlsRefusal.UNTRUSTED);
    }

    @Test
    void theJdksHostNameCheckIsAWrongHost() {
        Exception e =
                handshake(new CertificateException("No subject alternative names matching IP address 127.0.0.1 found"));

        assertThat(TlsRefusal.of(e)).isEqualTo(TlsRefusal.WRONG_HOST);
    }

    @Test
    void theDriversVerifyFullHostNameCheckIsAWrongHostAndFatal() {
        Exception e = new PSQLException(
                "The hostname 127.0.0.1 could not be verified by hostnameverifier PgjdbcHostnameVerifier.",
                PSQLState.CONNECTION_FAILURE);

        assertThat(TlsRefusal.of(e)).isEqualTo(TlsRefusal.WRONG_HOST);
        assertThat(DatabaseOutages.isTransient(e)).isFalse();
    }

    @Test
    void aHandshakeCutShortIsStillAnOutage() {
        Exception cut = driver(handshake(new EOFException("SSL peer shut down incorrectly")));
        Exception refused = driver(new ConnectException("Connection refused"));

        assertThat(TlsRefusal.of(cut)).isNull();
        assertThat(TlsRefusal.of(refused)).isNull();
        assertThat(DatabaseOutages.isTransient(cut)).isTrue();
        assertThat(DatabaseOutages.isTransient(refused)).isTrue();
    }
}
