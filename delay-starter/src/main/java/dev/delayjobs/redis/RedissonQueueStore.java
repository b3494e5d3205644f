package dev.delayjobs.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.Codec;

import dev.delayjobs.queue.ClusterSlot;

/**
 * The Redis side of queues that bridge a Redisson {@code RDelayedQueue} (compatibility mode): opens
 * Redisson's own delayed queue over the target list (which runs its transfer task), offers to it,
 * reads its elements and turns them into native jobs ({@code bridge-adopt.lua}) so that an element
 * is always either still Redisson's or a job of the native queue.
 *
 * <p>Internal API, used by {@code dev.delayjobs.bridge}. Scripts run on the master and see the
 * elements as bytes: the codec that wrote them is the caller's business.
 */
public final class RedissonQueueStore {

    private static final LuaScript ADOPT = LuaScript.load(Script.BRIDGE_ADOPT);
    private static final LuaScript PEEK = LuaScript.load(Script.BRIDGE_PEEK);
    private static final LuaScript STATS = LuaScript.load(Script.BRIDGE_STATS);

    private final RedissonClient redisson;
    private final String prefix;
    private final RScript script;
    private final Map<String, RDelayedQueue<Object>> opened = new ConcurrentHashMap<>();

    RedissonQueueStore(RedissonClient redisson, String prefix) {
        this.redisson = redisson;
        this.prefix = prefix;
        this.script = redisson.getScript(ByteArrayCodec.INSTANCE);
    }

    /** Where an element is read from. */
    public enum Source {
        /** The target list: elements Redisson's transfer moved there when due. */
        TARGET,
        /** The pending list, from its head: every element not yet transferred, in offer order. */
        PENDING,
        /** The timeout set: elements overdue that Redisson's transfer has not moved. */
        OVERDUE
    }

    /**
     * An element as read.
     *
     * @param source where it was read
     * @param stored the element as stored (packed with Redisson's random id in the timeout set)
     * @param value the codec's bytes of the payload
     * @param dueAt its due time in epoch ms, or -1 for an element of the target list (due already) or
     *     one of the pending list that has no due time (left behind by a partial write; dropped)
     */
    public record Element(Source source, byte[] stored, byte[] value, long dueAt) {
    }

    /**
     * What to make of an element: a job with {@code payload}, or, when {@code payload} is null, a
     * dead job with {@code error}.
     */
    public record Adoption(Element element, String id, @Nullable String payload, @Nullable String error) {
    }

    /**
     * @param created jobs created
     * @param dead jobs created dead (elements that could not be read)
     * @param gone elements no longer there (taken by another consumer or instance meanwhile)
     * @param deferred elements still Redisson's, found deeper in its pending list than a call looks
     *     (see {@code bridge-adopt.lua}): a later call moves them
     */
    public record Adopted(long created, long dead, long gone, long deferred) {
    }

    /**
     * Depth of the Redisson queue.
     *
     * @param serverNow the Redis clock, epoch ms
     * @param delayed elements waiting for their due time
     * @param ready due elements in the target list, not yet taken
     * @param nextDueAt the earliest due time, epoch ms (the publisher's clock), or -1
     */
    public record Depth(long serverNow, long delayed, long ready, long nextDueAt) {
    }

    /**
     * Creates Redisson's {@code RDelayedQueue} over {@code target} with {@code codec}, once: from now
     * on Redisson's transfer task, in this JVM, moves due elements to the list.
     */
    public void open(String target, Codec codec) {
        opened(target, codec);
    }

    private RDelayedQueue<Object> opened(String target, Codec codec) {
        return opened.computeIfAbsent(target, list -> RedisCalls.call("open the Redisson delayed queue over", list,
                () -> redisson.getDelayedQueue(redisson.getBlockingQueue(list, codec))));
    }

    /**
     * Offers an element the way Redisson's producers do: due after {@code delay} on this JVM's clock.
     * Opens the queue first if needed.
     */
    public void offer(String target, Codec codec, Object element, Duration delay) {
        RDelayedQueue<Object> queue = opened(target, codec);
        RedisCalls.call("offer to the Redisson delayed queue over", target, () -> {
            queue.offer(element, delay.toMillis(), TimeUnit.MILLISECONDS);
            return null;
        });
    }

    /** Stops Redisson's transfer tasks of every queue opened here. */
    public void closeAll() {
        opened.values().forEach(RDelayedQueue::destroy);
        opened.clear();
    }

    /** Blocks until the target list holds an element, or {@code timeout} passes, taking nothing. */
    public boolean awaitElements(String target, Duration timeout) {
        return RedisCalls.awaitNotEmpty(redisson, target, target, timeout);
    }

    /** Reads up to {@code max} elements from {@code source} without taking them. */
    public List<Element> peek(String target, Source source, int max, Duration overdueBy) {
        RedissonQueueKeys k = new RedissonQueueKeys(target);
        String what = switch (source) {
            case TARGET -> "target";
            case PENDING -> "pending";
            case OVERDUE -> "due";
        };
        List<Object> r = RedisCalls.call("read the Redisson delayed queue over", target, () -> PEEK.run(script,
                Mode.READ_WRITE, ReturnType.LIST, List.of(target, k.timeouts(), k.pending()), bytes(what),
                bytes(Integer.toString(max)), bytes(Long.toString(overdueBy.toMillis()))));
        List<Element> elements = new ArrayList<>(r.size() / 3);
        for (int i = 0; i + 2 < r.size(); i += 3) {
            byte[] due = (byte[]) r.get(i + 2);
            if (source == Source.OVERDUE && due == null) {
                continue;
            }
            // -1: an element of the target list (due already), or a pending one that is in no timeout set
            long dueAt = due == null || due.length == 0 ? -1 : epochMillis(new String(due, StandardCharsets.US_ASCII));
            elements.add(new Element(source, (byte[]) r.get(i), (byte[]) r.get(i + 1), dueAt));
        }
        return elements;
    }

    /** Moves the elements into {@code queue} as jobs, each only if still where it was read. */
    public Adopted adopt(String queue, String target, List<Adoption> adoptions) {
        RedissonQueueKeys r = new RedissonQueueKeys(target);
        QueueKeys k = new QueueKeys(prefix, queue);
        List<Object> args = new ArrayList<>(2 + adoptions.size() * 4);
        args.add(bytes(k.wakeChannel()));
        args.add(bytes(Integer.toString(adoptions.size())));
        for (Adoption adoption : adoptions) {
            args.add(bytes(switch (adoption.element().source()) {
                case TARGET -> "t";
                case PENDING -> "p";
                case OVERDUE -> "z";
            }));
            args.add(adoption.element().stored());
            args.add(bytes(adoption.id()));
            args.add(bytes(adoption.payload() != null ? "j" + adoption.payload() : "x" + adoption.error()));
        }
        List<Object> counts = RedisCalls.call("move elements into", queue, () -> ADOPT.run(script, Mode.READ_WRITE,
                ReturnType.LIST, List.of(target, r.timeouts(), r.pending(), k.jobs(), k.delayed(), k.ready(), k.stats(),
                        k.dead(), k.errors()), args.toArray()));
        return new Adopted(((Number) counts.get(0)).longValue(), ((Number) counts.get(1)).longValue(),
                ((Number) counts.get(2)).longValue(), ((Number) counts.get(3)).longValue());
    }

    /** The depth of the Redisson queue over {@code target}. */
    public Depth depth(String target) {
        RedissonQueueKeys k = new RedissonQueueKeys(target);
        List<Object> r = RedisCalls.call("read the depth of the Redisson delayed queue over", target,
                () -> STATS.run(script, Mode.READ_WRITE, ReturnType.LIST, List.of(target, k.timeouts())));
        return new Depth(((Number) r.get(0)).longValue(), ((Number) r.get(1)).longValue(), ((Number) r.get(2)).longValue(),
                ((Number) r.get(3)).longValue());
    }

    /**
     * Whether the queue's keys and the Redisson queue's keys share a Redis Cluster slot, as
     * {@code bridge-adopt.lua} needs on a cluster (the simplest way: name the queue after the list).
     */
    public boolean sharesSlot(String queue, String target) {
        return ClusterSlot.of(new QueueKeys(prefix, queue).jobs()) == ClusterSlot.of(new RedissonQueueKeys(target).timeouts())
                && ClusterSlot.of(target) == ClusterSlot.of(new RedissonQueueKeys(target).timeouts());
    }

    /** A score as Redis writes it: a number, or "inf" and "-inf", which anyone may have written to the set. */
    private static long epochMillis(String score) {
        return switch (score) {
            case "inf" -> Long.MAX_VALUE;
            case "-inf" -> Long.MIN_VALUE;
            default -> (long) Double.parseDouble(score);
        };
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
