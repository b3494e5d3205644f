package dev.delayjobs.embeddedredis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A bare RESP2 connection, outside any Redis client library: what an operator's {@code redis-cli}
 * would do. The cluster and Sentinel fixtures set servers up with it (CLUSTER MEET, ADDSLOTS,
 * SENTINEL ...), fault tests kill clients with it, and the benchmark observes the server with it
 * without showing up in the counts of the clients it measures. Not thread-safe.
 */
public final class RespConnection implements AutoCloseable {

    private static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(10);

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /**
     * Connects to a server, waiting at most 10 seconds for each reply.
     *
     * @param host the server's host name or address
     * @param port the server's port
     * @throws UncheckedIOException when no connection is made within 2 seconds
     */
    public RespConnection(String host, int port) {
        this(host, port, DEFAULT_READ_TIMEOUT);
    }

    /**
     * Connects to a server.
     *
     * @param host the server's host name or address
     * @param port the server's port
     * @param readTimeout longest wait for a reply; zero waits for good
     * @throws UncheckedIOException when no connection is made within 2 seconds
     */
    public RespConnection(String host, int port, Duration readTimeout) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress(host, port), 2000);
            socket.setSoTimeout((int) readTimeout.toMillis());
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot connect to " + host + ":" + port, ex);
        }
    }

    /**
     * Runs one command; returns a String (simple or bulk), a Long, a List or null.
     *
     * @param command the command name and its arguments, each sent as a bulk string in UTF-8
     *     ({@code List.of("CLUSTER", "KEYSLOT", key)})
     * @return the reply: a {@code String} for a simple or bulk string, a {@code Long} for an
     *     integer, a {@code List<Object>} of such values for an array, {@code null} for a nil
     *     reply
     * @throws ServerError on an error reply, with its text
     * @throws UncheckedIOException when the connection fails or no reply comes within the
     *     read timeout
     */
    public Object call(List<String> command) {
        try {
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write(("*" + command.size() + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String part : command) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                request.write(bytes);
                request.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            out.write(request.toByteArray());
            out.flush();
            return read();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("redis command " + command.get(0) + " failed", ex);
        }
    }

    /**
     * Runs one command, given as separate strings: {@code call("CLIENT", "KILL", "TYPE", "normal")}.
     *
     * @param command the command name and its arguments
     * @return the reply, as for {@link #call(List)}
     * @throws ServerError on an error reply, with its text
     * @throws UncheckedIOException when the connection fails or no reply comes within the
     *     read timeout
     */
    public Object call(String... command) {
        return call(List.of(command));
    }

    private Object read() throws IOException {
        int type = in.read();
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new ServerError(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("unexpected reply type '" + (char) type + "'");
        }
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            line.append((char) c);
        }
        in.read(); // '\n'
        return line.toString();
    }

    /** An error reply ({@code -ERR ...}, {@code -BUSY ...}); the message is its text. */
    public static final class ServerError extends IllegalStateException {

        ServerError(String text) {
            super(text);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        }
        catch (IOException ex) {
            // closing a setup connection
        }
    }
}
