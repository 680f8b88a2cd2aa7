package dev.outbox.delivery.amqp;

import com.rabbitmq.client.impl.DefaultExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AMQP client's exception handler for the relay's and the worker's connections: the client's
 * default behaviour (a consumer that throws closes its channel, and so on), but its reports are one
 * WARNING line naming the exception's class, never a stack trace or the exception's message. Under a
 * broker outage the default handler prints a stack trace per lost connection and channel; the outbox
 * says what it does about the outage in its own lines.
 */
public final class QuietExceptionHandler extends DefaultExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger("dev.outbox.amqp");

    @Override
    protected void log(String message, Throwable e) {
        log.warn("{} ({})", message, e.getClass().getName());
    }
}
