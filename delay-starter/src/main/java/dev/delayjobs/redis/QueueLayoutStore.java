package dev.delayjobs.redis;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Where the partitions of a queue live: their names (which become the hash tags of their keys), and
 * how many partitions each queue is laid out in, kept in Redis so that every application agrees.
 *
 * <p>Partition {@code i} of {@code n} is named {@code <queue>#<i>}, or {@code <queue>#<i>.<k>} with
 * the smallest {@code k} that puts its hash slot in the middle half of the {@code i}-th of {@code n}
 * equal slot ranges. A cluster whose masters own equal slot ranges (what {@code redis-cli --cluster
 * create} makes) then serves the partitions of a queue laid out in as many partitions as it has
 * masters, or a multiple, from different masters. The names depend on the queue and {@code n}
 * only, so every instance computes the same. A queue of one partition keeps its own name.
 */
public final class QueueLayoutStore {

    /** The most partitions a queue may have. */
    public static final int MAX_PARTITIONS = 128;

    private static final int SLOTS = 16384;
    private static final LuaScript RECORD_LAYOUT = LuaScript.load(Script.RECORD_LAYOUT);
    private static final LuaScript RECORD_PARTITION_LAYOUT = LuaScript.load(Script.RECORD_PARTITION_LAYOUT);
    private static final LuaScript RECORDED_LAYOUT = LuaScript.load(Script.RECORDED_LAYOUT);
    private static final LuaScript CLOSE_LAYOUT = LuaScript.load(Script.CLOSE_LAYOUT);

    private final RScript script;
    private final String prefix;

    public QueueLayoutStore(RedissonClient redisson, String prefix) {
        this.script = redisson.getScript(StringCodec.INSTANCE);
        this.prefix = prefix;
    }

    /** The names of the {@code partitions} partitions of {@code queue}, in order. */
    public static List<String> partitionNames(String queue, int partitions) {
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be between 1 and " + MAX_PARTITIONS + ", was " + partitions);
        }
        if (partitions == 1) {
            return List.of(queue);
        }
        List<String> names = new ArrayList<>(partitions);
        for (int i = 0; i < partitions; i++) {
            // the middle half of the range: slot ranges of unequal masters still rarely cut through it
            int from = (int) ((long) SLOTS * (4L * i + 1) / (4L * partitions));
            int to = (int) ((long) SLOTS * (4L * i + 3) / (4L * partitions));
            String name = queue + "#" + i;
            for (int k = 1; !inRange(slot(name), from, to); k++) {
                name = queue + "#" + i + "." + k;
            }
            names.add(name);
        }
        return List.copyOf(names);
    }

    private static boolean inRange(int slot, int from, int to) {
        return slot >= from && slot < Math.max(to, from + 1);
    }

    /** The Redis Cluster hash slot of every key of the partition (or unpartitioned queue) {@code name}. */
    public static int slot(String name) {
        return ClusterSlot.of("{" + name + "}");
    }

    /** The partition count recorded for {@code queue} (read on the master): 1 when none is. */
    public int recorded(String queue) {
        String n = RedisCalls.call("read the partition layout of", queue, () -> RECORDED_LAYOUT.run(script,
                Mode.READ_WRITE, ReturnType.STRING, List.of(registry()), queue));
        return n == null ? 1 : Integer.parseInt(n);
    }

    /**
     * The first step of laying {@code queue} out in {@code partitions} partitions instead of
     * {@code previous}: closes the partitions of the new layout to publishes until it is recorded,
     * then each partition of the old layout to publishes routed by the old count, checking in the
     * same call that it holds no job and has no live consumer but {@code instanceId}. When anything
     * is found, every partition is opened to publishes routed by the old count again and what was
     * found is returned; otherwise the old partitions stay closed and the caller {@link #record}s
     * the change.
     */
    public InUse close(String queue, int partitions, int previous, String instanceId) {
        List<String> old = partitionNames(queue, previous);
        List<String> closed = new ArrayList<>();
        InUse found = new InUse(0, 0, 0, null);
        try {
            for (String name : partitionNames(queue, partitions)) {
                InUse busy = old.contains(name) ? null : close(queue, name, partitions, previous, "new", instanceId);
                if (busy != null) {
                    return busy;
                }
            }
            for (String name : old) {
                InUse left = close(queue, name, partitions, previous, "old", instanceId);
                if (left == null) {
                    closed.add(name);
                }
                else {
                    found = found.plus(left);
                }
            }
        }
        finally {
            if (found.any() || closed.size() < old.size()) {
                // refused, or failed on the way: the old layout takes publishes again
                for (String name : closed) {
                    RedisCalls.call("reopen the partition layout of", queue, () -> setCount(name, previous));
                }
            }
        }
        return found;
    }

    /** What {@link #close} found under the old layout: jobs, live consumers, or another change under way. */
    public record InUse(long waiting, long dead, long consumers, @Nullable String otherChange) {

        /** Whether the change must not go on. */
        public boolean any() {
            return waiting > 0 || dead > 0 || consumers > 0 || otherChange != null;
        }

        InUse plus(InUse more) {
            return new InUse(waiting + more.waiting, dead + more.dead, consumers + more.consumers,
                    otherChange != null ? otherChange : more.otherChange);
        }
    }

    /** One call of close-layout.lua: null when the partition is closed, else what it holds. */
    private @Nullable InUse close(String queue, String name, int partitions, int previous, String side, String instanceId) {
        QueueKeys k = new QueueKeys(prefix, name);
        List<Object> r = RedisCalls.call("close the partition layout of", queue, () -> CLOSE_LAYOUT.run(script,
                Mode.READ_WRITE, ReturnType.LIST, k.of(k.control(), k.jobs(), k.delayed(), k.ready(), k.dead(),
                        k.instances()), Integer.toString(previous), Integer.toString(partitions), side, instanceId));
        long status = RedisCalls.asLong(r.get(0));
        if (status == 1) {
            return null;
        }
        return new InUse(RedisCalls.asLong(r.get(1)), RedisCalls.asLong(r.get(2)), RedisCalls.asLong(r.get(3)),
                status < 0 ? name + " is being laid out in " + r.get(4) + " partition(s)" : null);
    }

    private Long setCount(String name, int partitions) {
        QueueKeys k = new QueueKeys(prefix, name);
        return RECORD_PARTITION_LAYOUT.run(script, Mode.READ_WRITE, ReturnType.LONG, k.of(k.control()),
                Integer.toString(partitions));
    }

    /**
     * Records that {@code queue} is laid out in {@code partitions} partitions, and tells every
     * partition of this layout and of {@code previous} (the layout it replaces): a publisher that
     * still routes by another count is refused there ({@link LayoutChangedException}) and reads the
     * layout again.
     */
    public void record(String queue, int partitions, int previous) {
        List<String> names = new ArrayList<>(partitionNames(queue, partitions));
        partitionNames(queue, previous).stream().filter(name -> !names.contains(name)).forEach(names::add);
        for (String name : names) {
            QueueKeys k = new QueueKeys(prefix, name);
            RedisCalls.call("record the partition layout of", queue, () -> setCount(name, partitions));
        }
        // last: a reader who sees the new count finds every partition told already
        RedisCalls.call("record the partition layout of", queue, () -> RECORD_LAYOUT.run(script, Mode.READ_WRITE,
                ReturnType.LONG, List.of(registry()), Integer.toString(partitions), queue));
    }

    private String registry() {
        return QueueKeys.layouts(prefix);
    }
}
