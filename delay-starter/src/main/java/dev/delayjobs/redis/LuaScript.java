package dev.delayjobs.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

import org.redisson.api.RScript;
import org.redisson.client.RedisNoScriptException;

/**
 * One state change of the data model: a Lua file from this package, prefixed with the shared
 * {@code _record.lua}, run by SHA. A Redis restart or {@code SCRIPT FLUSH} empties the script
 * cache, so a NOSCRIPT reply runs the script once by its source (EVAL), which caches it again.
 */
final class LuaScript {

    private static final String LIBRARY = read("_record.lua");

    private final String name;
    private final String source;
    private final String sha;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha = sha1(source);
    }

    static LuaScript load(String name) {
        return new LuaScript(name, LIBRARY + "\n" + read(name + ".lua"));
    }

    String name() {
        return name;
    }

    <R> R run(RScript script, RScript.Mode mode, RScript.ReturnType returnType, List<Object> keys, Object... args) {
        String routingKey = (String) keys.get(0);
        try {
            return script.evalSha(routingKey, mode, sha, returnType, keys, args);
        }
        catch (RedisNoScriptException ex) {
            // EVAL caches the script on the node that runs it: on the master only, where a
            // SCRIPT LOAD would also go to every replica (and wait on a slow one)
            return script.eval(routingKey, mode, source, returnType, keys, args);
        }
    }

    private static String read(String file) {
        try (InputStream in = LuaScript.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + file + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
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
