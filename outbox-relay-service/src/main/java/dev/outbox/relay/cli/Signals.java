package dev.outbox.relay.cli;

import dev.outbox.relay.RelayLoggers;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SIGTERM and SIGINT ask the relay to stop: the current pass finishes, connections close and the
 * process exits 0 (a JVM shutdown hook could not change the exit status of a signalled process).
 * Through {@code sun.misc.Signal} (module {@code jdk.unsupported}, in every JDK since 9), reached by
 * reflection so that the build compiles without warnings; where it is missing, the JVM's default
 * handling (exit 143 on SIGTERM) stays.
 */
final class Signals {

    private static final Logger log = LoggerFactory.getLogger(RelayLoggers.SERVICE);

    private Signals() {}

    static void onTermination(Runnable stop) {
        Class<?> signal;
        Class<?> handler;
        try {
            signal = Class.forName("sun.misc.Signal");
            handler = Class.forName("sun.misc.SignalHandler");
        } catch (ClassNotFoundException e) {
            log.debug("no sun.misc.Signal in this JVM: SIGTERM and SIGINT end the relay as the JVM does");
            return;
        }
        for (String name : new String[] {"TERM", "INT"}) {
            Object onSignal = Proxy.newProxyInstance(
                    Signals.class.getClassLoader(), new Class<?>[] {handler}, (proxy, method, args) -> {
                        if (method.getName().equals("handle")) {
                            log.info("SIG{} received: finishing the current pass", name);
                            stop.run();
                            return null;
                        }
                        return method.getName().equals("toString")
                                ? "relay stop on SIG" + name
                                : method.getName().equals("hashCode")
                                        ? System.identityHashCode(proxy)
                                        : proxy == args[0];
                    });
            try {
                signal.getMethod("handle", signal, handler)
                        .invoke(null, signal.getConstructor(String.class).newInstance(name), onSignal);
            } catch (InvocationTargetException e) {
                // IllegalArgumentException: the JVM handles this signal itself (e.g. SIGINT under -Xrs)
                log.debug("cannot handle SIG{} here ({})", name, String.valueOf(e.getCause()));
            } catch (ReflectiveOperationException e) {
                log.debug("cannot handle SIG{} here ({})", name, e.getClass().getSimpleName());
            }
        }
    }
}
