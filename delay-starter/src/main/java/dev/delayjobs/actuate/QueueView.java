package dev.delayjobs.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.delayjobs.RateLimit;
import dev.delayjobs.partition.PartitionedStats;
import dev.delayjobs.redis.QueueStats;

/**
 * One queue as the endpoint shows it.
 *
 * @param delayed jobs waiting for their due time, retries included
 * @param ready due jobs waiting for a consumer
 * @param running jobs held by consumers
 * @param dead jobs in the dead set
 * @param nextDueAt due time of the earliest delayed job, or null
 * @param oldestOverdueMillis how long the oldest due job has waited for a consumer, in ms
 * @param consumers the live consumer instances
 * @param totals published, completed, retried and dead counts of all instances since the queue was created
 * @param localHandler whether this instance has a handler for the queue
 * @param paused whether the queue is paused (no instance claims its jobs)
 * @param pausedAt when it was paused, or null
 * @param rateLimit the rate limit in force: the one set at runtime, else the one this instance is
 *     configured with ({@code permits/window}), or null
 * @param rateLimitSetAtRuntime whether {@code rateLimit} was set at runtime, for every instance
 * @param mode {@code native}, or {@code redisson-delayed-queue} for a queue in compatibility mode
 *     (its counts include the elements still in the Redisson queue)
 * @param redissonDelayedQueue for a queue in compatibility mode, what is still in the Redisson
 *     {@code RDelayedQueue}; null for a native queue
 * @param partitions for a queue laid out in several partitions, the counts of each; null otherwise
 * @param groups groups with ready jobs (or parked at their group-concurrency limit), the default
 *     group not counted
 * @param largestGroups the {@value #LARGEST_GROUPS} groups with the most ready jobs among those
 *     measured (the first {@value QueueStats#GROUPS_READ} of each partition's rotation), most first
 */
public record QueueView(long delayed, long ready, long running, long dead, Instant nextDueAt, long oldestOverdueMillis,
        List<Consumer> consumers, Map<String, Long> totals, boolean localHandler, boolean paused, Instant pausedAt,
        String rateLimit, boolean rateLimitSetAtRuntime, String mode, BridgedQueueView redissonDelayedQueue, List<PartitionView> partitions,
        long groups, List<GroupView> largestGroups) {

    /** How many groups {@code largestGroups} lists at most. */
    static final int LARGEST_GROUPS = 10;

    static QueueView of(PartitionedStats partitioned, boolean localHandler, RateLimit configuredLimit) {
        QueueStats stats = partitioned.total();
        RateLimit runtime = stats.control().rateLimit();
        RateLimit limit = runtime != null ? runtime : configuredLimit;
        return new QueueView(stats.delayed(), stats.ready(), stats.running(), stats.dead(),
                stats.nextDueAt() < 0 ? null : Instant.ofEpochMilli(stats.nextDueAt()), stats.oldestLatenessMillis(),
                stats.instances().stream()
                        .map(i -> new Consumer(i.id(), i.workers(), i.running(), i.prefetched(),
                                Instant.ofEpochMilli(i.leaseDeadline())))
                        .toList(),
                stats.totals(), localHandler, stats.control().paused(), stats.control().pausedAt(),
                limit == null ? null : limit.toString(), runtime != null,
                stats.bridge() == null ? "native" : "redisson-delayed-queue",
                stats.bridge() == null ? null : new BridgedQueueView(stats.bridge().target(), stats.bridge().delayed(),
                        stats.bridge().ready(), stats.bridge().nextDueAt() < 0 ? null
                                : Instant.ofEpochMilli(stats.bridge().nextDueAt())),
                partitioned.partitions().size() == 1 ? null : partitioned.partitions().stream()
                        .map(p -> new PartitionView(p.name(), p.slot(), p.stats().delayed(), p.stats().ready(),
                                p.stats().running(), p.stats().dead(), p.stats().oldestLatenessMillis()))
                        .toList(),
                stats.groups(), stats.readyGroups().stream().limit(LARGEST_GROUPS)
                        .map(g -> new GroupView(g.group(), g.ready())).toList());
    }

    /**
     * A group of the queue.
     *
     * @param group its name
     * @param ready its ready jobs (ids in its ready list; stale ones, cancelled or rescheduled since,
     *     included until a claim meets them)
     */
    public record GroupView(String group, long ready) {
    }

    /**
     * One partition of a partitioned queue.
     *
     * @param name its name, the hash tag of its keys
     * @param slot the Redis Cluster hash slot of its keys
     * @param delayed jobs waiting for their due time
     * @param ready due jobs waiting for a consumer
     * @param running jobs held by consumers
     * @param dead jobs in the dead set
     * @param oldestOverdueMillis how long its oldest due job has waited for a consumer, in ms
     */
    public record PartitionView(String name, int slot, long delayed, long ready, long running, long dead,
            long oldestOverdueMillis) {
    }

    /**
     * What is still in the Redisson {@code RDelayedQueue} of a queue in compatibility mode.
     *
     * @param list its target list
     * @param delayed elements waiting for their due time (Redisson's timeout set)
     * @param ready due elements in the target list
     * @param nextDueAt the earliest due time among the waiting ones, or null
     */
    public record BridgedQueueView(String list, long delayed, long ready, Instant nextDueAt) {
    }

    /**
     * A consumer instance.
     *
     * @param instance its id
     * @param workers its concurrency
     * @param running jobs it started and holds now
     * @param prefetched jobs waiting in its prefetch buffer (counted in the queue's ready jobs)
     * @param leaseExpiresAt when others recover its jobs unless it heartbeats first
     */
    public record Consumer(String instance, int workers, long running, long prefetched, Instant leaseExpiresAt) {
    }
}
