package dev.delayjobs.redis;

import java.util.List;

/**
 * Jobs a consumer took.
 *
 * @param serverNow the Redis server clock when they were taken, epoch ms
 * @param jobs the jobs, oldest first
 */
public record Claim(long serverNow, List<StoredJob> jobs) {
}
