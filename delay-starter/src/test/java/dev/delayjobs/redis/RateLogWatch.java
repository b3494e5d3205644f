package dev.delayjobs.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every job a queue's rate limit admitted, on the Redis clock, as claim.lua logged it: the
 * server's MONITOR feed, read from a connection of this watch's own, gives each ZADD to the
 * queue's rate log (score = the claim's server time) and the ids the same claim pushed onto an
 * active list just before. Unlike reading the rate log, which claim.lua trims a window later,
 * the feed misses nothing however late this JVM reads it: the server buffers it.
 */
public final class RateLogWatch implements AutoCloseable {

    /** One claim the rate limit let through: its server time (epoch ms) and the jobs it started. */
    public record Admission(long redisMillis, List<String> ids) {
    }

    private final Socket socket;
    private final InputStream in;
    private final String rateLog;
    private final String activePrefix;
    private final List<Admission> admissions = new CopyOnWriteArrayList<>();
    private final Thread reader;
    private volatile IOException failure;
    /** Ids pushed onto an active list since the last rate log entry (one claim's). */
    private List<String> pushed = new ArrayList<>();

    private RateLogWatch(Socket socket, InputStream in, QueueKeys keys) {
        this.socket = socket;
        this.in = in;
        this.rateLog = keys.rateLog();
        this.activePrefix = keys.activePrefix();
        this.reader = new Thread(this::read, "rate-log-watch");
        this.reader.setDaemon(true);
    }

    /** Starts watching the rate log of unpartitioned {@code queue} under {@code prefix}; returns once the feed runs. */
    public static RateLogWatch start(String host, int port, String prefix, String queue) {
        try {
            Socket socket = new Socket(host, port);
            OutputStream out = socket.getOutputStream();
            out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            String ok = readLine(in);
            if (!"+OK".equals(ok)) {
                socket.close();
                throw new IllegalStateException("MONITOR answered " + ok);
            }
            RateLogWatch watch = new RateLogWatch(socket, in, new QueueKeys(prefix, queue));
            watch.reader.start();
            return watch;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** The admissions seen so far, in the order Redis ran them. */
    public List<Admission> admissions() {
        if (failure != null && !socket.isClosed()) {
            throw new UncheckedIOException(failure);
        }
        return List.copyOf(admissions);
    }

    /** How many jobs the admissions seen so far started. */
    public int admitted() {
        return admissions().stream().mapToInt(a -> a.ids().size()).sum();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private void read() {
        try {
            String line;
            while ((line = readLine(in)) != null) {
                seen(line);
            }
        }
        catch (IOException ex) {
            failure = ex;
        }
    }

    /** One fed command: {@code +<time> [<db> <client>] "CMD" "arg" ...}. */
    private void seen(String line) {
        List<String> args = quoted(line);
        if (args.size() < 2) {
            return;
        }
        String command = args.get(0);
        String key = args.get(1);
        if (command.equalsIgnoreCase("RPUSH") && key.startsWith(activePrefix)) {
            pushed.addAll(args.subList(2, args.size()));
        }
        else if (command.equalsIgnoreCase("ZADD") && key.equals(rateLog)) {
            // one ZADD per claim (and per 500 jobs): the pairs are score, member; all scores are the claim's time
            int jobs = (args.size() - 2) / 2;
            List<String> ids = pushed.size() >= jobs ? List.copyOf(pushed.subList(0, jobs)) : List.of();
            pushed = pushed.size() >= jobs ? new ArrayList<>(pushed.subList(jobs, pushed.size())) : new ArrayList<>();
            List<String> named = new ArrayList<>(ids);
            while (named.size() < jobs) {
                named.add("?");
            }
            admissions.add(new Admission(Long.parseLong(args.get(2)), List.copyOf(named)));
        }
    }

    /** The double-quoted words of a MONITOR line, unescaped (backslash escapes as Redis writes them). */
    private static List<String> quoted(String line) {
        List<String> words = new ArrayList<>();
        int i = line.indexOf('"');
        while (i >= 0 && i < line.length()) {
            StringBuilder word = new StringBuilder();
            i++;
            while (i < line.length() && line.charAt(i) != '"') {
                char c = line.charAt(i);
                if (c == '\\' && i + 1 < line.length()) {
                    char next = line.charAt(i + 1);
                    if (next == 'x' && i + 3 < line.length()) {
                        word.append((char) Integer.parseInt(line.substring(i + 2, i + 4), 16));
                        i += 4;
                        continue;
                    }
                    word.append(switch (next) {
                        case 'n' -> '\n';
                        case 'r' -> '\r';
                        case 't' -> '\t';
                        default -> next;
                    });
                    i += 2;
                    continue;
                }
                word.append(c);
                i++;
            }
            words.add(word.toString());
            i = line.indexOf('"', i + 1);
        }
        return words;
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            line.write(b);
        }
        return null;
    }
}
