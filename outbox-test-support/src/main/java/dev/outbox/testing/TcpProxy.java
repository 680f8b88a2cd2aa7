package dev.outbox.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A loopback TCP proxy in front of a test server, for outages that disturb nobody else: clients
 * connect to {@link #port()} and the proxy forwards every byte to the target. {@link #cut()} closes
 * every connection it carries (the clients see the server vanish); {@link #down()} also stops
 * listening, so new connections are refused until {@link #up()} listens again on the same port.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.to("127.0.0.1", 5432)) {
 *     String url = "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test";
 *     ...
 *     proxy.down(); // a database outage for the code under test
 *     proxy.up();
 * }
 * }</pre>
 */
public final class TcpProxy implements AutoCloseable {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private final String targetHost;
    private final int targetPort;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile @Nullable ServerSocket server;
    private volatile boolean closed;

    private TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        ServerSocket s = listen(0);
        this.port = s.getLocalPort();
        accept(s);
    }

    /** A proxy listening on a free loopback port, forwarding to {@code host:port}. */
    public static TcpProxy to(String host, int port) {
        try {
            return new TcpProxy(host, port);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the TCP proxy", e);
        }
    }

    /** A proxy in front of the host and port of a {@code jdbc:postgresql://} URL. */
    public static TcpProxy toJdbcUrl(String jdbcUrl) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        return to(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort());
    }

    /** A proxy in front of the host and port of an {@code amqp://} URI. */
    public static TcpProxy toAmqpUri(String amqpUri) {
        URI uri = URI.create(amqpUri);
        return to(uri.getHost(), uri.getPort() < 0 ? 5672 : uri.getPort());
    }

    /** The loopback port clients connect to. */
    public int port() {
        return port;
    }

    /** {@code jdbcUrl} with its host and port replaced by this proxy's. */
    public String jdbcUrl(String jdbcUrl) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        return "jdbc:" + rewrite(uri);
    }

    /** {@code amqpUri} with its host and port replaced by this proxy's. */
    public String amqpUri(String amqpUri) {
        return rewrite(URI.create(amqpUri));
    }

    private String rewrite(URI uri) {
        String rest = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (uri.getRawQuery() != null) {
            rest += "?" + uri.getRawQuery();
        }
        String userInfo = uri.getRawUserInfo() == null ? "" : uri.getRawUserInfo() + "@";
        return uri.getScheme() + "://" + userInfo + "127.0.0.1:" + port + rest;
    }

    /** Closes every connection the proxy carries; new ones are still accepted. */
    public void cut() {
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    /** Cuts every connection and stops listening: new connections are refused until {@link #up()}. */
    public synchronized void down() {
        ServerSocket s = server;
        server = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        cut();
    }

    /** Listens again on the same port after {@link #down()}. */
    public synchronized void up() {
        if (server != null || closed) {
            return;
        }
        try {
            accept(listen(port));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen again on port " + port, e);
        }
    }

    /** Whether the proxy currently accepts connections. */
    public boolean isUp() {
        return server != null;
    }

    @Override
    public void close() {
        closed = true;
        down();
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(LOOPBACK, port));
        return s;
    }

    private void accept(ServerSocket s) {
        server = s;
        Thread t = new Thread(
                () -> {
                    while (!s.isClosed()) {
                        try {
                            Socket client = s.accept();
                            connect(client);
                        } catch (IOException e) {
                            return; // closed by down()
                        }
                    }
                },
                "tcp-proxy-" + port + "-accept");
        t.setDaemon(true);
        t.start();
    }

    private void connect(Socket client) {
        Socket upstream;
        try {
            upstream = new Socket(targetHost, targetPort);
        } catch (IOException e) {
            closeQuietly(client);
            return;
        }
        sockets.add(client);
        sockets.add(upstream);
        if (server == null) { // went down meanwhile
            cut();
            return;
        }
        pump(client, upstream, "up");
        pump(upstream, client, "down");
    }

    private void pump(Socket from, Socket to, String direction) {
        Thread t = new Thread(
                () -> {
                    byte[] buffer = new byte[16 * 1024];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int n;
                        while ((n = in.read(buffer)) >= 0) {
                            out.write(buffer, 0, n);
                            out.flush();
                        }
                    } catch (IOException e) {
                        // one side closed or was cut
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                        sockets.remove(from);
                        sockets.remove(to);
                    }
                },
                "tcp-proxy-" + port + "-" + direction);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
