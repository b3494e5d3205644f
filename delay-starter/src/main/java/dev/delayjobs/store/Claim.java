package dev.delayjobs.store;

import java.util.List;
import java.util.Set;

/**
 * Jobs a consumer took.
 *
 * @param serverNow the Redis server clock when they were taken, epoch ms
 * @param jobs the jobs, oldest first
 * @param paused whether the queue is paused (then no job was taken)
 * @param rateLimitedForMillis when the queue's rate limit lets no more jobs start now, the ms until
 *     it lets the next one start; 0 otherwise
 * @param startsOnly whether a rate limit applies to the queue: the claim took only jobs that start
 *     now (none to prefetch), since the rate limit counts a job when it is claimed
 * @param moreReady whether ready jobs are left that this claim did not reach although it took fewer
 *     than asked for (a claim visits a bounded number of groups): the consumer claims again at once
 *     instead of waiting for ready jobs
 * @param suspects the ids of the jobs taken that were in the buffer of a consumer that stopped
 *     before their start mark reached Redis: a worker that takes one from a buffer must not run it
 *     before its start mark is recorded ({@link PartitionStore#markStarted})
 * @param fence when the instance's claim fence refused this claim (its epoch was below it), that
 *     fence, and nothing was taken; 0 otherwise
 */
public record Claim(long serverNow, List<StoredJob> jobs, boolean paused, long rateLimitedForMillis, boolean startsOnly,
        boolean moreReady, Set<String> suspects, long fence) {

    /** Whether the claim fence refused this claim: not an empty queue, but an epoch to raise. */
    public boolean fenced() {
        return fence > 0;
    }
}
