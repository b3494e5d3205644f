package dev.delayjobs.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisNoScriptException;
import org.redisson.client.codec.StringCodec;

/**
 * One state change of the data model: a Lua file from this package, prefixed with the includes it
 * names, run by SHA. A Redis restart or {@code SCRIPT FLUSH} empties the script cache, so a
 * NOSCRIPT reply runs the script once by its source (EVAL), which caches it again.
 *
 * <p>A script names what it uses on its first line, {@code --! include: _clock, _record}: each
 * name is a file {@code _<name>.lua} of this package, which may name includes of its own. The
 * source is every include once, those an include names before it, in the order named, then the
 * script: plain Lua (the directive is a comment), so a reader sees which functions a script can
 * call. Of each include, only the functions the script reaches go in, with all the rest
 * (constants): Redis builds every function of the text again at each call ({@link IncludedFunctions}).
 *
 * <p>A script that includes {@code _memo} gets a first line defining {@code MEMO_MS}, the
 * lifetime of request memos ({@link RequestMemo}): Redisson's defaults' as loaded, the client's
 * through {@link #withMemo}.
 */
final class LuaScript {

    private static final Pattern INCLUDE = Pattern.compile("--! include:(.*)");
    private static final String MEMO = "_memo";

    private final Script signature;
    private final String name;
    /** The includes and the script, without the MEMO_MS line. */
    private final String body;
    private final boolean memo;
    private final String source;
    private final String sha;

    private LuaScript(Script script, String body, boolean memo, long memoMs) {
        this.signature = script;
        this.name = script.file() + ".lua";
        this.body = body;
        this.memo = memo;
        this.source = memo ? "local MEMO_MS = " + memoMs + "\n" + body : body;
        this.sha = sha1(source);
    }

    static LuaScript load(Script script) {
        String name = script.file();
        String text = read(name + ".lua");
        Set<String> includes = includes(name, text, new ArrayDeque<>());
        List<IncludedFunctions.Include> files = new ArrayList<>();
        for (String include : includes) {
            files.add(new IncludedFunctions.Include(include, read(include + ".lua") + "\n"));
        }
        String body = IncludedFunctions.reachedBy(text, files) + text;
        return new LuaScript(script, body, includes.contains(MEMO), RequestMemo.DEFAULT_LIFETIME_MS);
    }

    /**
     * The includes {@code file} (with text {@code text}) needs, in the order they go before it:
     * each one's own first, each once. {@code path} holds the files being resolved, to refuse a cycle.
     */
    private static Set<String> includes(String file, String text, Deque<String> path) {
        Set<String> order = new LinkedHashSet<>();
        path.push(file);
        for (String include : named(file, text)) {
            if (path.contains(include)) {
                throw new IllegalStateException("Lua include cycle: " + include + " includes itself through " + path);
            }
            order.addAll(includes(include, read(include + ".lua"), path));
            order.add(include);
        }
        path.pop();
        return order;
    }

    /** The includes named on the first line of {@code text}, in order (none without the directive). */
    static List<String> named(String file, String text) {
        int end = text.indexOf('\n');
        Matcher directive = INCLUDE.matcher(end < 0 ? text : text.substring(0, end));
        if (!directive.matches()) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (String include : directive.group(1).split(",")) {
            String trimmed = include.strip();
            if (!trimmed.startsWith("_")) {
                throw new IllegalStateException(file + ".lua includes '" + trimmed + "': include files are named _<name>");
            }
            names.add(trimmed);
        }
        return names;
    }

    /** This script with request memos that live {@code memoMs} (a script of its own: another SHA). */
    LuaScript withMemo(long memoMs) {
        if (!memo) {
            throw new IllegalStateException(name + " keeps no request memo (it does not include _memo)");
        }
        return new LuaScript(signature, body, true, memoMs);
    }

    /** The text sent to Redis. */
    String source() {
        return source;
    }

    String name() {
        return name;
    }

    /**
     * Refuses a call whose KEYS or ARGV do not fit the script's header ({@link Script}): a script
     * reading an argument that is not there would fail halfway, or act on nil.
     */
    private void check(List<Object> keys, Object[] args) {
        if (!signature.keyNames().fits(keys.size()) || !signature.argNames().fits(args.length)) {
            throw new IllegalArgumentException(name + " takes KEYS " + signature.keyNames() + " and ARGV " + signature.argNames()
                    + "; was called with " + keys.size() + " key(s) and " + args.length + " argument(s)");
        }
    }

    <R> R run(RScript script, RScript.Mode mode, RScript.ReturnType returnType, List<Object> keys, Object... args) {
        check(keys, args);
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

    /**
     * {@link #run} without waiting: the reply completes the future on Redisson's I/O thread. A
     * NOSCRIPT reply runs the script by its source, as {@link #run} does. Never throws: a call that
     * cannot even be sent fails the future.
     */
    <R> CompletableFuture<R> runAsync(RScript script, RScript.Mode mode, RScript.ReturnType returnType, List<Object> keys,
            Object... args) {
        try {
            check(keys, args);
        }
        catch (IllegalArgumentException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        String routingKey = (String) keys.get(0);
        return withSourceOnNoScript(
                () -> script.<R>evalShaAsync(routingKey, mode, sha, returnType, keys, args).toCompletableFuture(),
                () -> script.<R>evalAsync(routingKey, mode, source, returnType, keys, args).toCompletableFuture());
    }

    /**
     * Runs the script, then waits for {@code confirmation.replicas()} replicas to have it (one batch:
     * the script and {@code WAIT} on one connection). Completes with the reply and how many confirmed;
     * like {@link #runAsync}, never throws.
     */
    <R> CompletableFuture<Confirmed<R>> runConfirmedAsync(RedissonClient redisson, RScript.Mode mode,
            RScript.ReturnType returnType, List<Object> keys, ReplicaConfirmation confirmation, Object... args) {
        try {
            check(keys, args);
        }
        catch (IllegalArgumentException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        String routingKey = (String) keys.get(0);
        return withSourceOnNoScript(
                () -> confirmed(redisson, confirmation, script -> script.evalShaAsync(routingKey, mode, sha, returnType, keys, args)),
                () -> confirmed(redisson, confirmation, script -> script.evalAsync(routingKey, mode, source, returnType, keys, args)));
    }

    private static <T> CompletableFuture<T> withSourceOnNoScript(Supplier<CompletableFuture<T>> bySha,
            Supplier<CompletableFuture<T>> bySource) {
        CompletableFuture<T> call;
        try {
            call = bySha.get();
        }
        catch (RuntimeException ex) {
            // Redisson refused to send it (shut down, say): the caller waits on the future alone
            return CompletableFuture.failedFuture(ex);
        }
        return call.exceptionallyCompose(ex -> isNoScript(ex) ? bySource.get() : CompletableFuture.failedFuture(ex));
    }

    /** Whether {@code failure} is a NOSCRIPT reply; in a batch it may come wrapped. */
    private static boolean isNoScript(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RedisNoScriptException || String.valueOf(t.getMessage()).contains("NOSCRIPT")) {
                return true;
            }
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private static <R> CompletableFuture<Confirmed<R>> confirmed(RedissonClient redisson, ReplicaConfirmation confirmation,
            Function<RScriptAsync, RFuture<Object>> call) {
        RBatch batch = redisson.createBatch(BatchOptions.defaults().sync(confirmation.replicas(), confirmation.timeout()));
        call.apply(batch.getScript(StringCodec.INSTANCE));
        return batch.executeAsync().toCompletableFuture()
                .thenApply(result -> new Confirmed<>((R) result.getResponses().get(0), result.getSyncedSlaves()));
    }

    /** A reply, and how many replicas had it when it returned. */
    record Confirmed<R>(R reply, int replicas) {
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
