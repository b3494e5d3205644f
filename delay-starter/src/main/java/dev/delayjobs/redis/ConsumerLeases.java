package dev.delayjobs.redis;

import static dev.delayjobs.redis.RedisCalls.asLong;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.redisson.api.RScript;
import org.redisson.api.RScript.Mode;
import org.redisson.api.RScript.ReturnType;

import dev.delayjobs.queue.Partition;
import dev.delayjobs.store.Recovery;

/**
 * The leases of the consumer instances on a partition of a queue (a queue that is not partitioned is
 * its own single partition), as the watchdog keeps
 * them: an instance renews its lease with {@link #heartbeat}, and {@link #recoverExpired} sends the
 * jobs of instances whose lease ran out back to ready. Obtained from {@link RedisJobStore#leases()}.
 */
public final class ConsumerLeases {

    private static final LuaScript HEARTBEAT = LuaScript.load(Script.HEARTBEAT);
    private static final LuaScript RECOVER_EXPIRED = LuaScript.load(Script.RECOVER_EXPIRED);
    /**
     * The most held ids one recover-expired.lua call goes through for expired instances: their claim entries
     * are a few dozen bytes each, so a call stays in the low milliseconds.
     */
    static final int RECOVERED_PER_CALL = 5_000;

    private final String prefix;
    private final RScript script;
    private final QueueReads reads;

    ConsumerLeases(String prefix, RScript script, QueueReads reads) {
        this.prefix = prefix;
        this.script = script;
        this.reads = reads;
    }

    /** Renews the lease of {@code instance} on the partition. */
    public void heartbeat(Partition partition, String instance, Duration lease, int workers) {
        QueueKeys k = new QueueKeys(prefix, partition);
        RedisCalls.call("heartbeat on", partition.name(), () -> HEARTBEAT.run(script, Mode.READ_WRITE, ReturnType.LONG,
                k.of(k.instances(), k.workers()), instance, Long.toString(lease.toMillis()), Integer.toString(workers)));
    }

    /**
     * Sends the jobs of instances whose lease expired back to ready (or dead, past {@code maxAttempts}),
     * in calls that each go through at most {@value #RECOVERED_PER_CALL} held ids: after a Redis pause
     * longer than the lease every instance expires at once, and one call for all of them would hold
     * Redis for as long as they hold jobs.
     */
    public Recovery recoverExpired(Partition partition, int maxAttempts) {
        return recoverExpired(partition, maxAttempts, RECOVERED_PER_CALL);
    }

    Recovery recoverExpired(Partition partition, int maxAttempts, int heldIdsPerCall) {
        String queue = partition.name();
        long requeued = 0;
        long buried = 0;
        long instances = 0;
        boolean more = true;
        while (more) {
            // the sweep's common case, no lease run out, costs this one read and no script that writes
            List<String> expired = reads.consumerInstances(partition, true);
            if (expired.isEmpty()) {
                break;
            }
            QueueKeys k = new QueueKeys(prefix, partition);
            List<Object> keys = new ArrayList<>(k.of(k.instances(), k.workers(), k.ready(), k.jobs(), k.dead(), k.errors(),
                    k.stats(), k.claimFences(), k.forgottenFences(), k.delayed(), k.successors(), k.claims(), k.groupsReady(),
                    k.groupHeld(), k.schedules(), k.scheduleOutcomes(), k.groups()));
            keys.addAll(QueueReads.activeLists(k, expired));
            List<Object> r = RedisCalls.call("recover jobs of", queue, () -> RECOVER_EXPIRED.run(script, Mode.READ_WRITE,
                    ReturnType.LIST, keys, k.activePrefix(), Integer.toString(maxAttempts),
                    Long.toString(RedisJobStore.FORGOTTEN_FENCE_KEPT.toMillis()), Integer.toString(heldIdsPerCall)));
            requeued += asLong(r.get(0));
            buried += asLong(r.get(1));
            instances += asLong(r.get(2));
            more = asLong(r.get(3)) == 1;
        }
        return new Recovery(requeued, buried, instances, 0);
    }
}
