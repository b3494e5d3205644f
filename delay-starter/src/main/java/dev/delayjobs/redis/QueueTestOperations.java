package dev.delayjobs.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.queue.Partition;

/**
 * What tests of an application do to its queues and production code never does: make waiting
 * jobs due now, and wipe a queue. Used by the starter's test support; kept here, with the other
 * scripts, because only the Redis layer knows key names.
 */
public final class QueueTestOperations {

    private static final LuaScript FAST_FORWARD = LuaScript.load(Script.FAST_FORWARD);
    private static final int FAST_FORWARD_BATCH = 1000;
    private static final LuaScript GROUP_PENDING = LuaScript.load(Script.GROUP_PENDING);

    private final RedissonClient redisson;
    private final String prefix;
    private final RScript script;

    public QueueTestOperations(RedissonClient redisson, String prefix) {
        this.redisson = redisson;
        this.prefix = prefix;
        this.script = redisson.getScript(StringCodec.INSTANCE);
    }

    /** Makes every delayed job of {@code partition} due within {@code window} from now due now; returns how many. */
    public long fastForward(Partition partition, Duration window) {
        QueueKeys k = new QueueKeys(prefix, partition);
        String queue = partition.name();
        long moved = 0;
        long last;
        do {
            last = RedisCalls.call("fast-forward", queue, () -> FAST_FORWARD.<Long>run(script, Mode.READ_WRITE, ReturnType.LONG,
                    k.of(k.jobs(), k.delayed(), k.ready(), k.groups(), k.groupsReady(), k.groupHeld()), Long.toString(window.toMillis()),
                    Integer.toString(FAST_FORWARD_BATCH)));
            moved += last;
        } while (last == FAST_FORWARD_BATCH);
        return moved;
    }

    /**
     * How many jobs of {@code group} in {@code partition} wait to be handled now: ready (stale ids of
     * the group's list included, until a claim drops them), held by a consumer (running or
     * prefetched), or due and not yet transferred.
     */
    public long groupPending(Partition partition, String group) {
        QueueKeys k = new QueueKeys(prefix, partition);
        List<Object> r = RedisCalls.call("count a group of", partition.name(), () -> GROUP_PENDING.run(script, Mode.READ_WRITE,
                ReturnType.LIST, k.of(k.delayed(), k.ready(), k.groups(), k.groupHeld(), k.instances(), k.claims()), group,
                k.activePrefix()));
        return r.stream().mapToLong(n -> ((Number) n).longValue()).sum();
    }

    /**
     * Deletes every job, counter and consumer entry of the partition (the queue stays in the registry
     * of known queues). Consumers still running keep their threads; what they had claimed is simply gone.
     */
    public void clear(Partition partition) {
        QueueKeys k = new QueueKeys(prefix, partition);
        RedisCalls.call("clear", partition.name(), () -> {
            List<String> keys = new ArrayList<>(List.of(k.jobs(), k.claims(), k.delayed(), k.ready(), k.dead(), k.errors(), k.stats(),
                    k.instances(), k.workers(), k.claimFences(), k.forgottenFences(), k.successors(), k.groups(), k.groupsReady(),
                    k.groupHeld(), k.delayedCounts(), k.delayedPages()));
            // a group with ready jobs is in the rotation (see _groups.lua): its list goes with it
            redisson.<String>getScoredSortedSet(k.groupsReady(), StringCodec.INSTANCE).readAll().stream()
                    .filter(group -> !group.isEmpty()).forEach(group -> keys.add(k.ready() + ":" + group));
            // a group with delayed jobs has a mark in delayed (character 1, then its name), a page of the
            // default group's one (character 2, then its number): the zset of each goes with it
            redisson.<String>getScoredSortedSet(k.delayed(), StringCodec.INSTANCE).readAll().forEach(member -> {
                if (member.startsWith("\u0001")) {
                    keys.add(k.delayed() + ":" + member.substring(1));
                } else if (member.startsWith("\u0002")) {
                    keys.add(k.delayed() + ":" + member);
                }
            });
            redisson.<String>getScoredSortedSet(k.instances(), StringCodec.INSTANCE).readAll()
                    .forEach(instance -> keys.add(k.active(instance)));
            redisson.<String, String>getMap(k.workers(), StringCodec.INSTANCE).readAllKeySet()
                    .forEach(instance -> keys.add(k.active(instance)));
            redisson.getKeys().delete(keys.stream().distinct().toArray(String[]::new));
            return null;
        });
    }
}
