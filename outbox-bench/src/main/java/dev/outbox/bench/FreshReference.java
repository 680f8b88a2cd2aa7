package dev.outbox.bench;

import dev.outbox.testing.TestPostgres;
import dev.outbox.testing.TestRabbit;
import java.time.Duration;

/**
 * The reference pipeline ({@link Reference}) in a JVM of its own, started for one run as relay and
 * worker are (REF-S1-FRESH): it drains the backlog of a schema and exits. The benchmark's own JVM,
 * where REF-S1 runs, has compiled the reference's code in earlier runs and the broker client's and
 * the driver's in the ceilings; relay and worker start cold every run.
 *
 * <p>Arguments: the schema, the queue, the number of events to complete. The servers are the tests'
 * ({@code OUTBOX_TEST_JDBC_URL}, {@code OUTBOX_TEST_AMQP_URI}), which the benchmark sets. Exits 0 when
 * all are completed, 1 when the pipeline failed or time ran out (the reason on standard error).
 */
public final class FreshReference {

    static final Duration TIMEOUT = Duration.ofMinutes(10);
    static final String COMPLETED = "reference completed";
    static final String CPU = "its JVM's CPU s";

    private FreshReference() {}

    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: FreshReference <schema> <queue> <events>, got " + args.length + " arguments");
            System.exit(2);
        }
        long expected;
        try {
            expected = Long.parseLong(args[2]);
        } catch (NumberFormatException e) {
            System.err.println("the number of events must be a whole number, got: " + args[2]);
            System.exit(2);
            return;
        }
        try (Reference ref =
                Reference.start(TestPostgres.get(), TestRabbit.get().connectionFactory(), args[0], args[1])) {
            ref.awaitCompleted(expected, TIMEOUT);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        double cpu = Bench.processCpuNanos() / 1e9;
        System.out.printf(java.util.Locale.ROOT, "%s %d; %s %.3f%n", COMPLETED, expected, CPU, cpu);
        System.exit(0);
    }

    /**
     * The CPU seconds its JVM had used when the pipeline was done, from its output; throws when the
     * output does not say (the process did not finish its work).
     */
    static double cpuSeconds(String output) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(CPU) + " ([0-9.]+)")
                .matcher(output);
        if (!output.contains(COMPLETED) || !m.find()) {
            throw new IllegalStateException(
                    "the reference's output does not say it completed its events and what CPU it used:\n" + output);
        }
        return Double.parseDouble(m.group(1));
    }
}
