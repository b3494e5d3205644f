package dev.delayjobs.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

import org.redisson.api.RedissonClient;
import org.redisson.api.queue.DequeMoveArgs;
import org.redisson.client.RedisException;
import org.redisson.client.RedisOutOfMemoryException;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.DelayQueueException;

/** How the Redis layer calls Redis: failures become {@link DelayQueueException} naming what was asked and why it failed. */
final class RedisCalls {

    private RedisCalls() {
    }

    static <T> T call(String action, String queue, Supplier<T> operation) {
        try {
            return operation.get();
        }
        catch (RedisException ex) {
            throw failure(action, queue, ex);
        }
    }

    /**
     * What an asynchronous call's failure becomes: a {@link DelayQueueException} naming what was
     * asked, as {@link #call} throws; one that already is (thrown by a stage of the call) stays as it is.
     */
    static DelayQueueException failure(String action, String queue, Throwable failure) {
        Throwable ex = failure;
        while ((ex instanceof CompletionException || ex instanceof ExecutionException) && ex.getCause() != null) {
            ex = ex.getCause();
        }
        if (ex instanceof DelayQueueException known) {
            return known;
        }
        if (isOutOfMemory(ex)) {
            return new DelayQueueException("Redis is out of memory: it refused to " + what(action, queue) + ", changing "
                    + "nothing (its used memory is over maxmemory, and under maxmemory-policy noeviction it refuses a "
                    + "write that adds data). Stored jobs are still delivered, and each one handled frees memory; try "
                    + "again later, or raise maxmemory", ex);
        }
        String why = ex instanceof RedisException redis ? describe(redis) : String.valueOf(ex);
        return new DelayQueueException("Redis could not " + what(action, queue) + ": " + why, ex);
    }

    /**
     * Whether {@code failure} is Redis refusing a write for memory ({@code OOM command not allowed
     * when used memory > 'maxmemory'}). Redis refuses a script only at its first write, before it
     * changed anything, so a refused call had no effect.
     */
    static boolean isOutOfMemory(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            // Redisson maps the reply to RedisOutOfMemoryException; a script error may carry it as text
            if (t instanceof RedisOutOfMemoryException
                    || String.valueOf(t.getMessage()).contains("command not allowed when used memory > 'maxmemory'")) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code call} with its failure turned into what {@link #call} would throw (a
     * {@link DelayQueueException} naming what was asked), for callers that do not wait.
     */
    static <T> CompletableFuture<T> completed(String action, String queue, CompletableFuture<T> call) {
        return call.handle((result, failure) -> {
            if (failure != null) {
                throw failure(action, queue, failure);
            }
            return result;
        });
    }

    /** Waits for an asynchronous call, and throws its failure as {@link #call} would. */
    static <T> T await(String action, String queue, CompletableFuture<T> call) {
        try {
            return call.get();
        }
        catch (ExecutionException ex) {
            throw failure(action, queue, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new DelayQueueException("Interrupted while waiting for Redis to " + what(action, queue)
                    + "; the call may still take effect", ex);
        }
    }

    /** A number in a script's reply (Redis integers arrive as {@code Long}). */
    static long asLong(Object reply) {
        return ((Number) reply).longValue();
    }

    private static String what(String action, String queue) {
        return queue == null ? action : action + " queue '" + queue + "'";
    }

    /**
     * Blocks until {@code list} is not empty, or the timeout passes, without taking anything: the
     * head is moved onto itself ({@code BLMOVE list list LEFT LEFT}).
     * @param timeout at least one second is waited: Redisson sends the timeout in whole seconds, and
     *     a timeout of 0 would block for good
     */
    static boolean awaitNotEmpty(RedissonClient redisson, String queue, String list, Duration timeout) {
        Duration wait = timeout.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : timeout;
        return call("wait on", queue, () -> redisson.<String>getBlockingDeque(list, StringCodec.INSTANCE)
                .move(wait, DequeMoveArgs.pollFirst().addFirstTo(list))) != null;
    }

    /**
     * The message of a Redisson failure and of its root cause: when the connection is gone,
     * Redisson says only "Unexpected exception while processing command", and the cause says why.
     */
    private static String describe(RedisException ex) {
        Throwable root = ex;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = String.valueOf(ex.getMessage());
        if (root == ex || root.getMessage() == null || message.contains(root.getMessage())) {
            return message;
        }
        return message + " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }
}
