package dev.delayjobs.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.queue.QueueName;

/**
 * How many partitions each queue is laid out in, kept in Redis so that every application agrees,
 * and the changes of that count. The partitions' names (the hash tags of their keys) are
 * {@link Partition}'s.
 */
public final class QueueLayoutStore {

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

    /** The partition count recorded for {@code queue} (read on the master): 1 when none is. */
    public int recorded(QueueName queue) {
        return RedisCalls.await("read the partition layout of", queue.value(), recordedAsync(queue));
    }

    /** {@link #recorded} without waiting: the reply completes the future on Redisson's I/O thread. */
    public CompletableFuture<Integer> recordedAsync(QueueName queue) {
        return RedisCalls.completed("read the partition layout of", queue.value(), RECORDED_LAYOUT.<String>runAsync(script,
                Mode.READ_WRITE, ReturnType.STRING, List.of(registry()), queue.value())).thenApply(n -> n == null ? 1 : Integer.parseInt(n));
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
    public InUse close(QueueName queue, int partitions, int previous, String instanceId) {
        List<Partition> old = Partition.all(queue, previous);
        List<Partition> closed = new ArrayList<>();
        InUse found = new InUse(0, 0, 0, null);
        try {
            for (Partition partition : Partition.all(queue, partitions)) {
                // a partition of both layouts (the same name) is closed once, as an old one
                InUse busy = isIn(old, partition) ? null : close(partition, partitions, previous, "new", instanceId);
                if (busy != null) {
                    return busy;
                }
            }
            for (Partition partition : old) {
                InUse left = close(partition, partitions, previous, "old", instanceId);
                if (left == null) {
                    closed.add(partition);
                }
                else {
                    found = found.plus(left);
                }
            }
        }
        finally {
            if (found.any() || closed.size() < old.size()) {
                // refused, or failed on the way: the old layout takes publishes again
                for (Partition partition : closed) {
                    RedisCalls.call("reopen the partition layout of", queue.value(), () -> setCount(partition, previous));
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
    private @Nullable InUse close(Partition partition, int partitions, int previous, String side, String instanceId) {
        QueueKeys k = new QueueKeys(prefix, partition);
        List<Object> r = RedisCalls.call("close the partition layout of", partition.queue().value(), () -> CLOSE_LAYOUT.run(script,
                Mode.READ_WRITE, ReturnType.LIST, k.of(k.control(), k.jobs(), k.delayed(), k.ready(), k.dead(),
                        k.instances()), Integer.toString(previous), Integer.toString(partitions), side, instanceId));
        long status = RedisCalls.asLong(r.get(0));
        if (status == 1) {
            return null;
        }
        return new InUse(RedisCalls.asLong(r.get(1)), RedisCalls.asLong(r.get(2)), RedisCalls.asLong(r.get(3)),
                status < 0 ? partition.name() + " is being laid out in " + r.get(4) + " partition(s)" : null);
    }

    private static boolean isIn(List<Partition> layout, Partition partition) {
        return layout.stream().anyMatch(p -> p.name().equals(partition.name()));
    }

    private Long setCount(Partition partition, int partitions) {
        QueueKeys k = new QueueKeys(prefix, partition);
        return RECORD_PARTITION_LAYOUT.run(script, Mode.READ_WRITE, ReturnType.LONG, k.of(k.control()),
                Integer.toString(partitions));
    }

    /**
     * Records that {@code queue} is laid out in {@code partitions} partitions, and tells every
     * partition of this layout and of {@code previous} (the layout it replaces): a publisher that
     * still routes by another count is refused there ({@link LayoutChangedException}) and reads the
     * layout again.
     */
    public void record(QueueName queue, int partitions, int previous) {
        List<Partition> told = new ArrayList<>(Partition.all(queue, partitions));
        Partition.all(queue, previous).stream().filter(p -> !isIn(told, p)).forEach(told::add);
        for (Partition partition : told) {
            RedisCalls.call("record the partition layout of", queue.value(), () -> setCount(partition, partitions));
        }
        // last: a reader who sees the new count finds every partition told already
        RedisCalls.call("record the partition layout of", queue.value(), () -> RECORD_LAYOUT.run(script, Mode.READ_WRITE,
                ReturnType.LONG, List.of(registry()), Integer.toString(partitions), queue.value()));
    }

    private String registry() {
        return QueueKeys.layouts(prefix);
    }
}
