package dev.delayjobs.store;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.delayjobs.RateLimit;

/**
 * What one claim asks of a partition.
 *
 * @param instance the consumer instance that takes the jobs
 * @param max the most jobs to take
 * @param start how many of them start now (RUNNING, an attempt counted); the others are
 *     PREFETCHED until {@link PartitionStore#markStartedAsync} says a worker started them. Under a
 *     rate limit only {@code start} jobs are taken.
 * @param lease how long the instance's lease lasts without a heartbeat
 * @param epoch the claim epoch: at least the fence set by the instance's last hand-back, else the
 *     claim takes nothing and reports the fence ({@link Claim#fenced()})
 * @param configuredLimit the rate limit configured for the queue, which a limit set at runtime
 *     replaces; {@code null} for none
 * @param partition the partition's index in the queue's layout: it lets its share of the rate limit start
 * @param partitions how many partitions the queue has
 * @param groupLimit most jobs of one group held at once by all instances ({@code delay.queues.<q>.group-concurrency}),
 *     0 for no limit
 */
public record ClaimRequest(String instance, int max, int start, Duration lease, long epoch,
        @Nullable RateLimit configuredLimit, int partition, int partitions, int groupLimit) {

    /** A claim with no limit per group. */
    public ClaimRequest(String instance, int max, int start, Duration lease, long epoch,
            @Nullable RateLimit configuredLimit, int partition, int partitions) {
        this(instance, max, start, lease, epoch, configuredLimit, partition, partitions, 0);
    }

    public ClaimRequest {
        if (max < 0 || start < 0 || start > max) {
            throw new IllegalArgumentException("a claim takes 0 <= start <= max jobs, was start " + start + ", max " + max);
        }
        if (partitions < 1 || partition < 0 || partition >= partitions) {
            throw new IllegalArgumentException("no partition " + partition + " of " + partitions);
        }
        if (groupLimit < 0) {
            throw new IllegalArgumentException("a group limit is 0 (none) or more, was " + groupLimit);
        }
    }
}
