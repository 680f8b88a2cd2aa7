package dev.outbox.delivery.amqp;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.impl.DefaultExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AMQP client's exception handler for the relay's and the worker's connections: the client's
 * default behaviour (a consumer that throws closes its channel, and so on), but its reports are one
 * WARNING line naming the exception's class, never a stack trace or the exception's message. Under a
 * broker outage the default handler prints a stack trace per lost connection and channel; the outbox
 * says what it does about the outage in its own lines. A lost connection's driver error is logged at
 * DEBUG only: the relay and the worker each say once that the broker is unreachable, and a refused
 * login ends in a socket error too.
 */
public final class QuietExceptionHandler extends DefaultExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger("dev.outbox.amqp");

    @Override
    public void handleUnexpectedConnectionDriverException(Connection conn, Throwable exception) {
        log.debug(
                "an unexpected connection driver error occurred ({})",
                exception.getClass().getName());
    }

    @Override
    protected void log(String message, Throwable e) {
        log.warn("{} ({})", message, e.getClass().getName());
    }
}
