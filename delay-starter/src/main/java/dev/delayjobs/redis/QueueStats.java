package dev.delayjobs.redis;

import java.util.List;
import java.util.Map;

import dev.delayjobs.DelayQueueControl.QueueControlState;

/**
 * Every count of one queue, read in one script call.
 *
 * @param serverNow the Redis server clock, epoch ms
 * @param delayed jobs waiting for their due time (retries included)
 * @param ready due jobs waiting for a consumer (ids in the ready list, stale ones included)
 * @param running jobs held by consumer instances
 * @param dead jobs in the dead set
 * @param nextDueAt due time of the earliest delayed job, epoch ms, or -1
 * @param oldestWaitingDueAt due time of the oldest job that is due and not yet running, epoch ms,
 *     or -1 when none is waiting
 * @param totals counters shared by all instances: published, completed, retried, dead
 * @param instances the consumer instances holding a lease on the queue
 * @param control whether the queue is paused, and its runtime rate limit
 */
public record QueueStats(long serverNow, long delayed, long ready, long running, long dead, long nextDueAt,
        long oldestWaitingDueAt, Map<String, Long> totals, List<ConsumerInstance> instances, QueueControlState control) {

    /** How long the oldest waiting job has been overdue, in ms (0 when none is). */
    public long oldestLatenessMillis() {
        return oldestWaitingDueAt < 0 ? 0 : Math.max(0, serverNow - oldestWaitingDueAt);
    }

    /**
     * A consumer instance of the queue.
     *
     * @param id the instance id
     * @param leaseDeadline when its lease runs out unless renewed, epoch ms
     * @param workers its concurrency
     * @param held jobs it holds now
     */
    public record ConsumerInstance(String id, long leaseDeadline, int workers, long held) {
    }
}
