package dev.delayjobs.partition;

import java.util.List;

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
        return new PartitionedStats(QueueStats.sum(partitions.stream().map(Partition::stats).toList()),
                List.copyOf(partitions));
    }
}
