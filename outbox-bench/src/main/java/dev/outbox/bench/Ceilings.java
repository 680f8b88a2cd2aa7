package dev.outbox.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MessageProperties;
import dev.outbox.testing.TestPostgres;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The machine's own ceilings, measured in the same run so that every figure is also a ratio:
 * PostgreSQL doing the outbox's row lifecycle in batches (pgbench), and RabbitMQ taking persistent
 * publishes with confirms, many in flight, through a plain client loop.
 */
final class Ceilings {

    private Ceilings() {}

    /**
     * Rows per second through insert → claim with SKIP LOCKED → complete, 100 rows a statement, 2
     * clients, for {@code seconds}. Returns NaN when pgbench is not installed.
     */
    static double postgresRowsPerSecond(TestPostgres pg, String schema, int seconds) throws Exception {
        Path pgbench = Path.of("/usr/bin/pgbench");
        if (!Files.isExecutable(pgbench)) {
            return Double.NaN;
        }
        try (java.sql.Connection c = pg.connect();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + schema + ".ceiling (id bigserial PRIMARY KEY, status int NOT NULL,"
                    + " payload text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), done_at timestamptz)");
            s.execute("CREATE INDEX ON " + schema + ".ceiling (id) WHERE status = 0");
            s.execute("CREATE INDEX ON " + schema + ".ceiling (id) WHERE status = 1");
        }
        int rows = 100;
        String script = String.join(
                "\n",
                "INSERT INTO " + schema
                        + ".ceiling (status, payload) SELECT 0, repeat('x', 300) FROM generate_series(1, " + rows
                        + ");",
                "UPDATE " + schema + ".ceiling SET status = 1 WHERE id IN (SELECT id FROM " + schema
                        + ".ceiling WHERE status = 0 ORDER BY id LIMIT " + rows + " FOR UPDATE SKIP LOCKED);",
                "UPDATE " + schema + ".ceiling SET status = 2, done_at = now() WHERE id IN (SELECT id FROM " + schema
                        + ".ceiling WHERE status = 1 ORDER BY id LIMIT " + rows + " FOR UPDATE SKIP LOCKED);",
                "");
        Path file = Files.createTempFile("outbox-ceiling", ".sql");
        Files.writeString(file, script);
        URI uri = URI.create(pg.jdbcUrl().substring("jdbc:".length()));
        List<String> command = new ArrayList<>(List.of(
                pgbench.toString(),
                "-n",
                "-f",
                file.toString(),
                "-c",
                "2",
                "-j",
                "2",
                "-T",
                String.valueOf(seconds),
                "-h",
                uri.getHost(),
                "-p",
                String.valueOf(uri.getPort() < 0 ? 5432 : uri.getPort()),
                "-U",
                pg.user(),
                uri.getPath().substring(1)));
        // its output goes to a file, read once pgbench has ended: a pgbench that hangs cannot hang the bench
        Path output = Files.createTempFile("outbox-ceiling", ".out");
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        if (!pg.password().isEmpty()) {
            pb.environment().put("PGPASSWORD", pg.password());
        }
        Process p = pb.start();
        boolean ended = p.waitFor(seconds + 60L, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String out = Files.readString(output, StandardCharsets.UTF_8);
        Files.deleteIfExists(file);
        Files.deleteIfExists(output);
        if (!ended) {
            throw new IOException("pgbench did not end within " + (seconds + 60) + " s: " + out);
        }
        Matcher m = Pattern.compile("tps = ([0-9.]+)").matcher(out);
        if (!m.find()) {
            throw new IOException("pgbench gave no tps: " + out);
        }
        // one pgbench transaction = the three statements over `rows` rows
        return Double.parseDouble(m.group(1)) * rows;
    }

    /**
     * The CPU seconds of the local broker's processes ({@code beam.smp}, read from {@code /proc}), or
     * NaN when no such process is found here (a broker on another host).
     */
    static double brokerCpuSeconds() {
        double total = 0;
        boolean found = false;
        try (java.nio.file.DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                try {
                    String stat = Files.readString(proc.resolve("stat"));
                    if (stat.contains("(beam.smp)")) {
                        total += ChildProcess.cpuSecondsOf(stat);
                        found = true;
                    }
                } catch (IOException e) {
                    // the process ended meanwhile
                }
            }
        } catch (IOException e) {
            return Double.NaN;
        }
        return found ? total : Double.NaN;
    }

    /**
     * The broker's CPU microseconds per message for {@code messages} persistent messages with
     * {@code props} and a body like a job message's: published with confirms, 2,000 in flight, and
     * consumed from the same queue (prefetch 500, one multiple ack per 100). NaN when the broker is
     * not a process of this machine.
     */
    static double brokerMicrosPerMessage(
            ConnectionFactory factory, String queue, int messages, AMQP.BasicProperties props, byte[] body)
            throws Exception {
        try (Connection publishing = factory.newConnection("outbox-bench-headers-publish");
                Connection consuming = factory.newConnection("outbox-bench-headers-consume")) {
            Channel channel = publishing.createChannel();
            channel.queueDeclare(queue, true, false, false, null);
            Channel consumer = consuming.createChannel();
            consumer.basicQos(500);
            java.util.concurrent.CountDownLatch all = new java.util.concurrent.CountDownLatch(messages);
            consumer.basicConsume(queue, false, new com.rabbitmq.client.DefaultConsumer(consumer) {
                private int unacked;

                @Override
                public void handleDelivery(
                        String tag, com.rabbitmq.client.Envelope envelope, AMQP.BasicProperties properties, byte[] b)
                        throws IOException {
                    all.countDown();
                    if (++unacked == 100 || all.getCount() == 0) {
                        consumer.basicAck(envelope.getDeliveryTag(), true);
                        unacked = 0;
                    }
                }
            });
            double before = brokerCpuSeconds();
            publishConfirmed(channel, queue, messages, props, body);
            if (!all.await(60, TimeUnit.SECONDS)) {
                throw new IOException(
                        "only " + (messages - all.getCount()) + " of " + messages + " messages came back");
            }
            double micros = (brokerCpuSeconds() - before) * 1e6 / messages;
            channel.queueDelete(queue);
            return micros;
        }
    }

    /** Persistent 300-byte messages per second, confirmed, 2,000 in flight, through one channel. */
    static double rabbitPublishesPerSecond(ConnectionFactory factory, String queue, int messages) throws Exception {
        byte[] body = "x".repeat(300).getBytes(StandardCharsets.US_ASCII);
        try (Connection connection = factory.newConnection("outbox-bench-ceiling");
                Channel channel = connection.createChannel()) {
            channel.queueDeclare(queue, true, false, false, null);
            long start = System.nanoTime();
            publishConfirmed(channel, queue, messages, MessageProperties.PERSISTENT_BASIC, body);
            double seconds = (System.nanoTime() - start) / 1e9;
            channel.queueDelete(queue);
            return messages / seconds;
        }
    }

    /** Publishes {@code messages} to {@code queue} with confirms, 2,000 in flight, and waits for the last confirm (a nack throws). */
    private static void publishConfirmed(
            Channel channel, String queue, int messages, AMQP.BasicProperties props, byte[] body) throws Exception {
        ConfirmWindow window = new ConfirmWindow(channel, 2_000);
        for (int i = 0; i < messages; i++) {
            window.publishing();
            channel.basicPublish("", queue, props, body);
        }
        channel.waitForConfirmsOrDie(60_000);
    }
}
