package dev.delayjobs.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RedissonClient;

/**
 * Every job a queue's rate limit admitted, on the Redis clock, as claim.lua logged it: the
 * server's MONITOR feed, read on a connection of this watch's own, gives each ZADD to the queue's
 * rate log (score = the claim's server time) and the ids each claim pushed onto an active list.
 * Unlike reading the rate log, which claim.lua trims a window later, the feed misses nothing
 * however late this JVM reads it: the server buffers it, in the order it ran the commands.
 */
public final class RateLogWatch implements AutoCloseable {

    /** One rate log write: the claim's server time (epoch ms) and how many jobs it logged. */
    public record Admission(long redisMillis, int jobs) {
    }

    private final Socket socket;
    private final InputStream in;
    private final String rateLog;
    private final String activePrefix;
    private final String mark;
    private final List<Admission> admissions = new CopyOnWriteArrayList<>();
    private final List<String> claimed = new CopyOnWriteArrayList<>();
    private final Map<String, Long> admittedAt = new ConcurrentHashMap<>();
    private final Thread reader;
    private final Semaphore marksSeen = new Semaphore(0);
    private volatile IOException failure;
    /** Ids claimed since the last rate log write: the claim that writes it next took them. */
    private List<String> pending = new ArrayList<>();

    private RateLogWatch(Socket socket, InputStream in, QueueKeys keys) {
        this.socket = socket;
        this.in = in;
        this.rateLog = keys.rateLog();
        this.activePrefix = keys.activePrefix();
        this.mark = keys.rateLog() + "-watch-mark";
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

    /**
     * Returns once the feed was read up to now: a command sent through {@code redisson} after every
     * command before it (Redis feeds them in the order it runs them) is seen within {@code atMost}.
     */
    public void catchUp(RedissonClient redisson, Duration atMost) throws InterruptedException {
        redisson.getBucket(mark).isExists();
        if (!marksSeen.tryAcquire(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the MONITOR feed did not show " + mark + " within " + atMost
                    + (failure == null ? "" : ": " + failure));
        }
    }

    /** The rate log writes seen, in the order Redis ran them. */
    public List<Admission> admissions() {
        return List.copyOf(admissions);
    }

    /** The ids claimed (pushed onto an active list), in the order Redis ran the claims. */
    public List<String> claimed() {
        return List.copyOf(claimed);
    }

    /** For each job claimed and then logged, the server time of its claim. */
    public Map<String, Long> admittedAt() {
        return Map.copyOf(admittedAt);
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
            pending.addAll(args.subList(2, args.size()));
            claimed.addAll(args.subList(2, args.size()));
        }
        else if (command.equalsIgnoreCase("ZADD") && key.equals(rateLog)) {
            // score, member pairs; every score is the claim's server time
            long at = Long.parseLong(args.get(2));
            admissions.add(new Admission(at, (args.size() - 2) / 2));
            pending.forEach(id -> admittedAt.put(id, at));
            pending = new ArrayList<>();
        }
        else if (key.equals(mark)) {
            marksSeen.release();
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
