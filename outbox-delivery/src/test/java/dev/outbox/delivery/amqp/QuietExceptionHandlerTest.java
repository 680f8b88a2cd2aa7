package dev.outbox.delivery.amqp;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ExceptionHandler;
import com.rabbitmq.client.impl.DefaultExceptionHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The AMQP client's reports are one line naming the exception's class, without a stack trace or message. */
class QuietExceptionHandlerTest {

    @Test
    void reportsAnErrorInOneLineWithoutItsMessageOrStackTrace() {
        String printed = printedWhile(() -> new QuietExceptionHandler()
                .handleConnectionRecoveryException(null, new IOException("connection reset by secret-host")));

        assertThat(printed)
                .contains("WARN", "dev.outbox.amqp", "java.io.IOException")
                .doesNotContain("secret-host")
                .doesNotContain("\tat ");
        assertThat(printed.strip().lines()).hasSize(1);
    }

    @Test
    void aLostConnectionsDriverErrorIsNotAWarning() {
        // the relay and the worker say that the broker is unreachable themselves; a refused login ends this way too
        String printed = printedWhile(() -> new QuietExceptionHandler()
                .handleUnexpectedConnectionDriverException(null, new java.net.SocketException("Socket closed")));

        assertThat(printed).isEmpty();
    }

    @Test
    void factoriesOfAnAddressAndCopiesOfDefaultFactoriesGetIt() {
        assertThat(AmqpFactories.of(AmqpAddress.parse("amqp://rabbit", "amqpUri"))
                        .getExceptionHandler())
                .isInstanceOf(QuietExceptionHandler.class);
        ConnectionFactory users = new ConnectionFactory();
        ConnectionFactory quiet = AmqpFactories.quiet(users);

        assertThat(quiet).isNotSameAs(users);
        assertThat(quiet.getExceptionHandler()).isInstanceOf(QuietExceptionHandler.class);
        assertThat(users.getExceptionHandler()).isExactlyInstanceOf(DefaultExceptionHandler.class);
    }

    @Test
    void aHandlerTheOwnerChoseIsKept() {
        ConnectionFactory users = new ConnectionFactory();
        ExceptionHandler own = new DefaultExceptionHandler() {};
        users.setExceptionHandler(own);

        assertThat(AmqpFactories.quiet(users)).isSameAs(users);
        assertThat(users.getExceptionHandler()).isSameAs(own);
    }

    private static String printedWhile(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
