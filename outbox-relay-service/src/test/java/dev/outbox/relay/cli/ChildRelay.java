package dev.outbox.relay.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The relay service as a child JVM of a test, on this test's class path, and the routes file those tests give it. */
final class ChildRelay {

    private ChildRelay() {}

    /** {@code dir/routes.json}: {@code order.cancelled} → job {@code refund} on {@code queue}, one retry after 5 s, timeout 60 s. */
    static Path refundRoutes(Path dir, String queue) throws IOException {
        Path routes = dir.resolve("routes.json");
        Files.writeString(routes, """
                {"routes": {"order.cancelled": [{"job": "refund", "queue": "%s", "retryDelaysSeconds": [5], "deliveryTimeoutSeconds": 60}]}}
                """.formatted(queue));
        return routes;
    }

    /** {@code java [jvmOptions] -cp <class path> RelayCommand args}; the caller sets redirects and environment. */
    static ProcessBuilder command(List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), RelayCommand.class.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }
}
