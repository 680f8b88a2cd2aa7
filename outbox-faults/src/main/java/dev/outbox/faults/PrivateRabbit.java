package dev.outbox.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A RabbitMQ node of the suite's own ({@code outbox-faults-<id>@localhost}) on free ports from 56720,
 * with its own configuration, data and log directories in a temporary directory, so that stopping
 * it never touches another node on the machine. Needs {@code rabbitmq-server} and {@code rabbitmqctl}
 * on the PATH.
 */
final class PrivateRabbit implements AutoCloseable {

    static final int FIRST_PORT = 56720;
    private static final String PREFIX = "outbox-faults-";

    private final String node;
    private final int port;
    private final Path dir;
    private final Path log;
    private final Map<String, String> env;

    private PrivateRabbit(String node, int port, Path dir, Path log, Map<String, String> env) {
        this.node = node;
        this.port = port;
        this.dir = dir;
        this.log = log;
        this.env = env;
    }

    static boolean available() {
        return Commands.onPath("rabbitmq-server") && Commands.onPath("rabbitmqctl");
    }

    static PrivateRabbit start(Path runDir) {
        int port = Commands.freePorts(FIRST_PORT, 2); // AMQP, then Erlang distribution
        String node = PREFIX + UUID.randomUUID().toString().substring(0, 8) + "@localhost";
        Map<String, String> env = new LinkedHashMap<>();
        Path dir;
        try {
            // a directory of its own in the temporary directory: the run's directory may be private to us
            dir = Files.createTempDirectory("outbox-faults-rabbitmq-");
            // the server runs as its own user (the Debian package switches to it): let it write here
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            Path envFile = write(
                    dir.resolve("rabbitmq-env.conf"),
                    "NODENAME=" + node + "\nERL_EPMD_ADDRESS=127.0.0.1\n"
                            + "export ERL_FLAGS=\"-kernel inet_dist_use_interface {127,0,0,1}\"\n");
            Path config = write(dir.resolve("rabbitmq.conf"), "listeners.tcp.local = 127.0.0.1:" + port + "\n");
            Path plugins = write(dir.resolve("enabled_plugins"), "[].\n");
            env.put("RABBITMQ_NODENAME", node);
            env.put("RABBITMQ_NODE_PORT", String.valueOf(port));
            env.put("RABBITMQ_DIST_PORT", String.valueOf(port + 1));
            env.put("RABBITMQ_CONF_ENV_FILE", envFile.toString());
            env.put("RABBITMQ_CONFIG_FILE", config.toString());
            env.put("RABBITMQ_ENABLED_PLUGINS_FILE", plugins.toString());
            env.put("RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString());
            env.put("RABBITMQ_LOG_BASE", dir.resolve("log").toString());
            env.put("RABBITMQ_PID_FILE", dir.resolve("pid").toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the private RabbitMQ node's directory", e);
        }
        PrivateRabbit rabbit = new PrivateRabbit(node, port, dir, runDir.resolve("rabbitmq-ctl.log"), env);
        try {
            Commands.run(List.of("rabbitmq-server", "-detached"), env, rabbit.log, 60);
            rabbit.ctl(120, "wait", "--timeout", "120", dir.resolve("pid").toString());
        } catch (RuntimeException e) {
            rabbit.close();
            throw e;
        }
        return rabbit;
    }

    private static Path write(Path file, String content) throws IOException {
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        return file;
    }

    String uri() {
        return "amqp://guest:guest@127.0.0.1:" + port + "/%2F";
    }

    int port() {
        return port;
    }

    /** Stops the broker application (every connection drops, the listener closes); the node stays up. */
    void stopApp() {
        ctl(60, "stop_app");
    }

    void startApp() {
        ctl(60, "start_app");
        ctl(60, "await_startup");
    }

    private void ctl(long timeoutSeconds, String... args) {
        if (!node.startsWith(PREFIX)) {
            throw new IllegalStateException("refusing to control a node that is not the suite's own");
        }
        List<String> command = new ArrayList<>(List.of("rabbitmqctl", "-n", node));
        command.addAll(List.of(args));
        Commands.run(command, env, log, timeoutSeconds);
    }

    @Override
    public void close() {
        try {
            ctl(60, "stop", dir.resolve("pid").toString());
        } catch (RuntimeException e) {
            killByPidFile();
        }
        Commands.deleteTree(dir);
    }

    private void killByPidFile() {
        try {
            long pid = Long.parseLong(Files.readString(dir.resolve("pid")).trim());
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        } catch (IOException | RuntimeException e) {
            // never started, or gone
        }
    }
}
