package dev.delayjobs.benchmark;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * Names the starter's scripts by their SHA: each script's source as the starter's own loader
 * ({@code LuaScript}, package-private: reached by reflection) builds it, so the names follow any
 * change of how includes are put together. The scripts that keep request memos (publish, claim,
 * cancel) start with a MEMO_MS line that depends on the client's settings: they are named for
 * Redisson's default settings (the benchmark's), as the loader's default is.
 */
final class Scripts {

    private static final Map<String, String> BY_SHA = new HashMap<>();

    static {
        try {
            Class<?> script = Class.forName("dev.delayjobs.redis.Script");
            Class<?> luaScript = Class.forName("dev.delayjobs.redis.LuaScript");
            Method load = luaScript.getDeclaredMethod("load", script);
            Method source = luaScript.getDeclaredMethod("source");
            Method file = script.getDeclaredMethod("file");
            load.setAccessible(true);
            source.setAccessible(true);
            file.setAccessible(true);
            for (Object constant : script.getEnumConstants()) {
                BY_SHA.put(sha1((String) source.invoke(load.invoke(null, constant))), (String) file.invoke(constant));
            }
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            // the scripts are then counted as evalsha:other
            System.err.println("cannot name the starter's scripts: " + ex);
        }
    }

    private Scripts() {
    }

    /** "evalsha:&lt;sha&gt;" becomes "evalsha:publish" for the starter's scripts, "evalsha:other" otherwise. */
    static String name(String evalshaWithSha) {
        String sha = evalshaWithSha.substring(evalshaWithSha.indexOf(':') + 1);
        return "evalsha:" + BY_SHA.getOrDefault(sha, "other");
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
