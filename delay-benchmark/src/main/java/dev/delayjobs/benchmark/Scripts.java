package dev.delayjobs.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** Names the starter's scripts by their SHA, the way its LuaScript loads them (library + newline + file). */
final class Scripts {

    private static final Map<String, String> BY_SHA = new HashMap<>();

    static {
        List<String> names = List.of("publish", "transfer", "claim", "ack", "retry", "bury", "heartbeat", "recover",
                "cancel", "reschedule", "find", "trim-dead", "queue-stats", "dead-page", "requeue-dead", "delete-dead");
        String library = read("_record.lua");
        for (String name : names) {
            String source = read(name + ".lua");
            if (library != null && source != null) {
                BY_SHA.put(sha1(library + "\n" + source), name);
            }
        }
    }

    private Scripts() {
    }

    /** "evalsha:&lt;sha&gt;" becomes "evalsha:publish" for the starter's scripts, "evalsha:other" otherwise. */
    static String name(String evalshaWithSha) {
        String sha = evalshaWithSha.substring(evalshaWithSha.indexOf(':') + 1);
        return "evalsha:" + BY_SHA.getOrDefault(sha, "other");
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
