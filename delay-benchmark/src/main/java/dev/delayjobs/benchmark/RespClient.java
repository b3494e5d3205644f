package dev.delayjobs.benchmark;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A bare RESP2 connection used only to observe the server (INFO, SLOWLOG, LATENCY, CONFIG,
 * FLUSHALL). It is kept apart from Redisson so that measuring does not show up in the counts of
 * the engines under test.
 */
final class RespClient implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RespClient(String host, int port) {
        try {
            socket = new Socket(host, port);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
            out = new BufferedOutputStream(socket.getOutputStream());
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot connect to Redis at " + host + ":" + port, ex);
        }
    }

    /** Sends one command and reads its reply; waits while a long script keeps the server BUSY. */
    synchronized Object call(String... args) {
        for (int attempt = 0; ; attempt++) {
            try {
                return send(args);
            }
            catch (ServerError ex) {
                if (!ex.getMessage().startsWith("BUSY") || attempt > 3000) {
                    throw ex;
                }
                sleep(100);
            }
        }
    }

    String text(String... args) {
        Object reply = call(args);
        return reply == null ? null : reply.toString();
    }

    private Object send(String... args) {
        try {
            out.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                out.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(bytes);
                out.write('\r');
                out.write('\n');
            }
            out.flush();
            return read();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
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
                byte[] data = in.readNBytes(length + 2);
                return new String(data, 0, length, StandardCharsets.UTF_8);
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
            case -1:
                throw new EOFException("Redis closed the connection");
            default:
                throw new IOException("unexpected RESP type byte " + type);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(64);
        int b;
        while ((b = in.read()) != '\r') {
            if (b < 0) {
                throw new EOFException("Redis closed the connection");
            }
            buffer.write(b);
        }
        in.read(); // '\n'
        return buffer.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        }
        catch (IOException ignored) {
            // closing anyway
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    static final class ServerError extends RuntimeException {
        ServerError(String message) {
            super(message);
        }
    }
}
