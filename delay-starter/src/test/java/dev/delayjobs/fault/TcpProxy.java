package dev.delayjobs.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a loopback port in front of Redis, for the soak: it adds latency to every chunk
 * it forwards, and drops every open connection on demand (what a flaky network or a load balancer
 * does to clients). One thread per direction and connection; loopback only.
 */
final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile long latencyMs;
    private volatile boolean closed;

    TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "tcp-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Delays every forwarded chunk by {@code ms} (0: none). */
    void latency(long ms) {
        this.latencyMs = ms;
    }

    /** Closes every open connection, in both directions; new ones are accepted as before. */
    void dropAll() {
        for (Socket socket : open) {
            closeQuietly(socket);
        }
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        dropAll();
    }

    private void accept() {
        while (!closed) {
            Socket client = null;
            try {
                client = server.accept();
                Socket redis = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                client.setTcpNoDelay(true);
                redis.setTcpNoDelay(true);
                open.add(client);
                open.add(redis);
                pump(client, redis);
                pump(redis, client);
            }
            catch (IOException ex) {
                // the server socket closed, or Redis refused (restarting): the client sees a closed connection
                if (client != null) {
                    closeQuietly(client);
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    long delay = latencyMs;
                    if (delay > 0) {
                        Thread.sleep(delay);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
            catch (IOException | InterruptedException ex) {
                // dropped, or the peer went away
            }
            finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "tcp-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(java.io.Closeable closeable) {
        try {
            closeable.close();
        }
        catch (IOException ex) {
            // closing anyway
        }
    }
}
