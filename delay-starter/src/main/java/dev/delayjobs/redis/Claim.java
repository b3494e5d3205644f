package dev.delayjobs.redis;

import java.util.List;

/**
 * Jobs a consumer took.
 *
 * @param serverNow the Redis server clock when they were taken, epoch ms
 * @param jobs the jobs, oldest first
 * @param paused whether the queue is paused (then no job was taken)
 * @param rateLimitedForMillis when the queue's rate limit lets no more jobs start now, the ms until
 *     it lets the next one start; 0 otherwise
 */
public record Claim(long serverNow, List<StoredJob> jobs, boolean paused, long rateLimitedForMillis) {
}
