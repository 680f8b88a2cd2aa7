package dev.outbox.delivery.internal;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * Why a TLS connection to PostgreSQL or RabbitMQ was refused by the client's verification: the
 * server's certificate is not trusted, or it does not name the host connected to. Either is fatal
 * (trying again meets the same certificate): the relay and the worker stop with one line instead of
 * waiting as for an outage. Read from the exception classes (and, for the PostgreSQL driver's host
 * name check, which has no cause of its own, from its message), never printed from them.
 */
public enum TlsRefusal {

    /** No chain to a trusted CA (another CA signed it), or a certificate of the chain is expired or not yet valid. */
    UNTRUSTED("the server's certificate is not trusted (not signed by the trusted CA, or expired)"),
    /** The certificate is trusted but names another host than the one connected to. */
    WRONG_HOST("the server's certificate does not name the host connected to");

    private final String text;

    TlsRefusal(String text) {
        this.text = text;
    }

    /** One clause for a message, without the setting that fixes it. */
    public String text() {
        return text;
    }

    /** The refusal among {@code e} and its causes, or null when none is a TLS verification failure. */
    public static @Nullable TlsRefusal of(Throwable e) {
        boolean certificate = false;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException) {
                return UNTRUSTED;
            }
            if (t instanceof CertificateException) {
                certificate = true; // the JDK's host name check: "No subject alternative DNS name matching ..."
            }
            if (t instanceof SQLException sql
                    && "08006".equals(sql.getSQLState())
                    && sql.getCause() == null
                    && String.valueOf(sql.getMessage()).contains("could not be verified by hostnameverifier")) {
                return WRONG_HOST; // pgjdbc's sslmode=verify-full check
            }
        }
        return certificate ? WRONG_HOST : null;
    }
}
