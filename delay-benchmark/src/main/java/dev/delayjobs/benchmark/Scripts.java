package dev.delayjobs.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Names the starter's scripts by their SHA, the way its LuaScript loads them: the includes named on
 * a script's first line ({@code --! include: _a, _b}, each once, an include's own first), each
 * followed by a newline, then the file. The scripts that keep request memos (publish, claim, cancel)
 * start with a MEMO_MS line that depends on the client's settings: they are named for Redisson's
 * default settings (the benchmark's), as {@code RequestMemo} computes them.
 */
final class Scripts {

    private static final Map<String, String> BY_SHA = new HashMap<>();

    static {
        List<String> names = List.of("publish", "transfer", "claim", "start", "ack", "retry", "bury", "heartbeat",
                "recover-expired", "release", "release-all-but", "cancel", "reschedule", "find", "trim-dead", "queue-stats",
                "dead-page", "requeue-dead", "delete-dead", "schedules-due", "tick", "schedule-declare", "schedule-remove",
                "schedules-page", "schedule-set-tick", "rate-limit", "control-state", "consumer-instances",
                "expired-instances", "known-queues", "register-queue", "group-pending", "pause", "resume");
        long memoMs = defaultMemoMs();
        for (String name : names) {
            String source = read(name + ".lua");
            if (source != null) {
                StringBuilder body = new StringBuilder();
                Set<String> includes = includes(source, new LinkedHashSet<>());
                for (String include : includes) {
                    body.append(read(include + ".lua")).append('\n');
                }
                String text = body.append(source).toString();
                BY_SHA.put(sha1(text), name);
                if (includes.contains("_memo") && memoMs > 0) {
                    // the memo scripts start with their memo's lifetime: Redisson's defaults' here
                    BY_SHA.put(sha1("local MEMO_MS = " + memoMs + "\n" + text), name);
                }
            }
        }
    }

    private Scripts() {
    }

    /** The MEMO_MS of the starter's scripts under Redisson's default settings (package-private there: read by reflection). */
    private static long defaultMemoMs() {
        try {
            java.lang.reflect.Field field = Class.forName("dev.delayjobs.redis.RequestMemo").getDeclaredField("DEFAULT_LIFETIME_MS");
            field.setAccessible(true);
            return field.getLong(null);
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            return -1;
        }
    }

    /** "evalsha:&lt;sha&gt;" becomes "evalsha:publish" for the starter's scripts, "evalsha:other" otherwise. */
    static String name(String evalshaWithSha) {
        String sha = evalshaWithSha.substring(evalshaWithSha.indexOf(':') + 1);
        return "evalsha:" + BY_SHA.getOrDefault(sha, "other");
    }

    private static Set<String> includes(String source, Set<String> order) {
        String first = source.lines().findFirst().orElse("");
        if (first.startsWith("--! include:")) {
            for (String include : first.substring("--! include:".length()).split(",")) {
                String name = include.strip();
                String text = read(name + ".lua");
                if (!order.contains(name) && text != null) {
                    includes(text, order);
                    order.add(name);
                }
            }
        }
        return order;
    }

    private static String read(String file) {
        try (InputStream in = Scripts.class.getResourceAsStream("/dev/delayjobs/redis/" + file)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            return null;
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
