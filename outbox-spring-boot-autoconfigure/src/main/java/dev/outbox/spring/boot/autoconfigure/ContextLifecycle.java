package dev.outbox.spring.boot.autoconfigure;

import org.springframework.context.SmartLifecycle;

/**
 * What the worker's and the embedded relay's lifecycles share: started with the context (unless
 * auto-startup is off), stopped gracefully with it in {@link #PHASE}, the stop run off the caller's
 * thread as the context's shutdown phases expect. Every phase ends before the context destroys its
 * beans, the {@code DataSource} among them. Started once: a context stopped and started again does not
 * restart what was closed.
 */
abstract class ContextLifecycle implements SmartLifecycle {

    /** The phase: {@link SmartLifecycle#DEFAULT_PHASE} (that of Spring AMQP's listener containers), started last and stopped first. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE;

    private final boolean autoStartup;
    private final String stopThread;
    private volatile boolean running;

    ContextLifecycle(boolean autoStartup, String stopThread) {
        this.autoStartup = autoStartup;
        this.stopThread = stopThread;
    }

    /** Starts the work. */
    abstract void open();

    /** Ends the work, waiting for what runs. */
    abstract void close();

    @Override
    public final void start() {
        open();
        running = true;
    }

    @Override
    public final void stop() {
        try {
            close();
        } finally {
            running = false;
        }
    }

    @Override
    public final void stop(Runnable callback) {
        Thread closing = new Thread(
                () -> {
                    try {
                        stop();
                    } finally {
                        callback.run();
                    }
                },
                stopThread);
        closing.start();
    }

    @Override
    public final boolean isRunning() {
        return running;
    }

    @Override
    public final boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public final int getPhase() {
        return PHASE;
    }
}
