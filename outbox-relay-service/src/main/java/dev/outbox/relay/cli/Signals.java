package dev.outbox.relay.cli;

import dev.outbox.relay.RelayLoggers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT ask the relay to stop: the current pass finishes, connections close and the
 * process exits 0 (a JVM shutdown hook could not change the exit status of a signalled process).
 */
final class Signals {

    private static final Logger log = LoggerFactory.getLogger(RelayLoggers.SERVICE);

    private Signals() {}

    static void onTermination(Runnable stop) {
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal.handle(new Signal(name), signal -> {
                    log.info("SIG{} received: finishing the current pass", signal.getName());
                    stop.run();
                });
            } catch (IllegalArgumentException e) {
                log.debug("cannot handle SIG{} here ({})", name, e.getClass().getSimpleName());
            }
        }
    }
}
