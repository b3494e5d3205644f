package dev.delayjobs.partition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.delayjobs.redis.QueueStats;

/**
 * The counts of a queue over all its partitions, and of each partition.
 *
 * @param total the queue's counts: sums, the earliest due times, each consumer instance once
 * @param partitions per partition, in order; a single entry for a queue that is not partitioned
 */
public record PartitionedStats(QueueStats total, List<Partition> partitions) {

    /**
     * One partition's counts.
     *
     * @param name the partition's name (the hash tag of its keys)
     * @param slot the Redis Cluster hash slot of its keys
     * @param stats its counts
     */
    public record Partition(String name, int slot, QueueStats stats) {
    }

    static PartitionedStats of(List<Partition> partitions) {
        if (partitions.size() == 1) {
            return new PartitionedStats(partitions.get(0).stats(), partitions);
        }
        long now = 0;
        long delayed = 0;
        long ready = 0;
        long running = 0;
        long dead = 0;
        long nextDue = -1;
        long oldestWaiting = -1;
        Map<String, Long> totals = new LinkedHashMap<>();
        Map<String, QueueStats.ConsumerInstance> instances = new LinkedHashMap<>();
        for (Partition partition : partitions) {
            QueueStats s = partition.stats();
            now = Math.max(now, s.serverNow());
            delayed += s.delayed();
            ready += s.ready();
            running += s.running();
            dead += s.dead();
            nextDue = earliest(nextDue, s.nextDueAt());
            oldestWaiting = earliest(oldestWaiting, s.oldestWaitingDueAt());
            s.totals().forEach((name, value) -> totals.merge(name, value, Long::sum));
            // an instance consumes every partition with the same workers: shown once, holding what it holds in all
            for (QueueStats.ConsumerInstance i : s.instances()) {
                instances.merge(i.id(), i, (a, b) -> new QueueStats.ConsumerInstance(a.id(),
                        Math.min(a.leaseDeadline(), b.leaseDeadline()), Math.max(a.workers(), b.workers()), a.held() + b.held()));
            }
        }
        // the control state is set on every partition at once; the first partition's stands for the queue
        QueueStats total = new QueueStats(now, delayed, ready, running, dead, nextDue, oldestWaiting, totals,
                new ArrayList<>(instances.values()), partitions.get(0).stats().control(), null);
        return new PartitionedStats(total, List.copyOf(partitions));
    }

    private static long earliest(long a, long b) {
        if (a < 0) {
            return b;
        }
        return b < 0 ? a : Math.min(a, b);
    }
}
