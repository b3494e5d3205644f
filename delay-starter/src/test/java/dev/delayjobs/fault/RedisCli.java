package dev.delayjobs.fault;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends one command to a Redis on its own short-lived connection, outside any Redisson client:
 * what an operator's {@code redis-cli} would do ({@code CLIENT KILL}, {@code PUBSUB NUMSUB}, ...).
 * Replies: a {@code String} (simple or bulk string, or null), a {@code Long}, or a {@code List}.
 * An error reply throws.
 */
final class RedisCli {

    private RedisCli() {
    }

    static Object call(int port, String... command) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            StringBuilder request = new StringBuilder("*").append(command.length).append("\r\n");
            for (String part : command) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                request.append('$').append(bytes.length).append("\r\n").append(part).append("\r\n");
            }
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return reply(new BufferedInputStream(socket.getInputStream()));
        }
        catch (IOException ex) {
            throw new UncheckedIOException("redis " + String.join(" ", command) + " failed", ex);
        }
    }

    static long callLong(int port, String... command) {
        return (Long) call(port, command);
    }

    private static Object reply(InputStream in) throws IOException {
        String line = line(in);
        char type = line.charAt(0);
        String rest = line.substring(1);
        switch (type) {
            case '+':
                return rest;
            case '-':
                throw new IllegalStateException("Redis replied " + rest);
            case ':':
                return Long.parseLong(rest);
            case '$': {
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(rest);
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    items.add(reply(in));
                }
                return items;
            }
            default:
                throw new IllegalStateException("unexpected reply " + line);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed");
            }
            if (previous == '\r' && b == '\n') {
                byte[] all = bytes.toByteArray();
                return new String(all, 0, all.length - 1, StandardCharsets.UTF_8);
            }
            bytes.write(b);
            previous = b;
        }
    }
}
